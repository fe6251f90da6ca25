import type { ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import { join } from "node:path";
import type { AppName, VenomHome } from "./home.js";
import { openPrivateAppend } from "./private-files.js";
import { servingPid } from "./socket-probe.js";

const START_TIMEOUT_MS = 15_000;
/** A connect to a socket that is not there yet costs little: asked often, the start returns soon after the daemon listens. */
const POLL_MS = 10;

/**
 * Starts `node MAIN serve` (an app's CLI) as a daemon of its own in `home` and
 * resolves with its pid once it answers on its socket: what `venom-X start`
 * does, and what venom-orch does when it needs venom-mux; `started` is false
 * when another start's daemon answered first. Detached (a session
 * of its own), so that nothing that stops its starter reaches it. Its stderr
 * goes to a private file, so that a crash before its logger exists still
 * leaves a trace. `home` is one its caller has made private (home.ensure():
 * `start` before it probes the socket, a daemon when it began to serve).
 */
export async function startDaemon(options: {
  main: string;
  app: AppName;
  home: VenomHome;
  workspace: string;
  policy?: string;
}): Promise<{ pid: number; started: boolean }> {
  const { main, app, home, workspace, policy } = options;
  const args = [main, "serve", "--workspace", workspace, ...(policy ? ["--policy", policy] : [])];
  const log = join(home.logs, `${app}.stderr`);
  // Loaded here: child_process is not worth the start time of every CLI command.
  const { spawn } = await import("node:child_process");
  const stderr = openPrivateAppend(log);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, {
      detached: true,
      stdio: ["ignore", "ignore", stderr],
      env: { ...process.env, VENOM_HOME: home.root },
    });
  } finally {
    // The daemon has its own copy; a starter that lives on (venom-orch) must not keep one per start.
    closeSync(stderr);
  }
  let failed: Error | undefined;
  child.once("error", (error) => {
    failed = error;
  });
  child.unref();
  const socket = home.socket(app);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    // Who answers, not only whether: a start that raced another finds the other's daemon serving, and its own gone.
    const pid = await servingPid(socket);
    if (pid !== null) return { pid, started: pid === child.pid };
    if (failed) throw new Error(`the daemon could not be spawned: ${failed.message}`);
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon did not start; see ${log}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
