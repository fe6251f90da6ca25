import { closeSync } from "node:fs";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";

/** How long `stop` waits for the daemon's process to exit before saying it is still stopping. */
const STOP_WAIT_MS = 5_000;
const POLL_MS = 25;

export function stopCommand(app: CliApp): Command {
  return {
    name: "stop",
    summary: "stop the daemon: cancel its calls, remove its socket, and wait until its process has exited",
    usage: "stop",
    management: true,
    async execute({ home, json, io, connections }) {
      // Loaded here: client commands do without the koffi bindings (docs/benchmarks.md).
      const { pidfdExited, pidfdOpen } = await import("@venom/native");
      // The command line's own connection, closed after: a later command of a sequence (`stop \; ls`) then connects
      // again and finds no daemon. On a connection of its own, the one the sequence shared could still look open
      // when the socket was gone, and that command failed with "connection closed" instead of "not running".
      const client = await connections.client(app, home);
      let pid: number;
      let pidfd: number;
      try {
        pid = (await client.request("daemon/status")).pid;
        // Opened while the daemon answers: the pidfd names that process even if its pid is reused once it exits.
        pidfd = pidfdOpen(pid);
        await client.request("daemon/stop");
      } finally {
        client.close();
      }
      // Stopped means the process has exited, not only that its socket is gone: until then a following `start`
      // finds it "already running" (its socket goes after its panes and jobs end), and its work may still run.
      let exited: boolean;
      try {
        exited = await within(STOP_WAIT_MS, () => pidfdExited(pidfd));
      } finally {
        closeSync(pidfd);
      }
      if (!exited) {
        if (json) io.out(JSON.stringify({ stopped: false, pid }));
        io.err(`${app.program} is still stopping (pid ${pid}): its process has not exited after ${STOP_WAIT_MS / 1000} s`);
        return Exit.failed;
      }
      if (json) io.out(JSON.stringify({ stopped: true, pid }));
      else io.out(`${app.program} stopped`);
      return Exit.ok;
    },
  };
}

/** Whether `done` holds within `ms`, asked every POLL_MS. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
