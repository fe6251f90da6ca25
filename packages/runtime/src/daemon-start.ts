import type { ChildProcess } from "node:child_process";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { VenomHome } from "./home.js";
import { openPrivateAppend } from "./private-files.js";
import { servingPid } from "./socket-probe.js";

/** How long a new daemon may take to answer on its socket (`start`, and `restart` waiting for the new one). */
export const START_TIMEOUT_MS = 15_000;
/** A connect to a socket that is not there yet costs little: asked often, the start returns soon after the daemon listens. */
const POLL_MS = 10;
/** How much of a failed start's stderr its error quotes: the last lines of at most this many bytes. */
const SAID_BYTES = 2048;
const SAID_LINES = 3;

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
  app: string;
  home: VenomHome;
  workspace: string;
  policy?: string;
}): Promise<{ pid: number; started: boolean }> {
  const { main, app, home, workspace, policy } = options;
  const args = [main, "serve", "--workspace", workspace, ...(policy ? ["--policy", policy] : [])];
  const log = home.stderrLog(app);
  // Loaded here: child_process is not worth the start time of every CLI command.
  const { spawn } = await import("node:child_process");
  const stderr = openPrivateAppend(log);
  // Where this start's own lines begin: a daemon that cannot start says why there (a bad config.toml, naming the key).
  const offset = fstatSync(stderr).size;
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
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon did not start${saidSince(log, offset)}; see ${log}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The last lines the daemon wrote to its stderr log after `offset` (bounded), as ": …", or "" when it wrote none. */
function saidSince(log: string, offset: number): string {
  const buffer = Buffer.alloc(SAID_BYTES);
  let fd: number;
  try {
    fd = openSync(log, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return "";
  }
  try {
    const start = Math.max(offset, fstatSync(fd).size - SAID_BYTES);
    const lines = buffer
      .subarray(0, readSync(fd, buffer, 0, SAID_BYTES, start))
      .toString("utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    return lines.length > 0 ? `: ${lines.slice(-SAID_LINES).join("; ")}` : "";
  } finally {
    closeSync(fd);
  }
}
