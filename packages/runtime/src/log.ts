import { writeSync } from "node:fs";
import type { ToolStatus } from "@venom/proto";
import pino, { type Logger } from "pino";
import type { VenomHome } from "./home.js";
import { openPrivateAppend } from "./private-files.js";

export type { Logger };

/**
 * The daemon's diagnostics: pino JSON in $VENOM_HOME/logs/<app>.log (0600),
 * never on the protocol stream. Callers log identities, method and tool names,
 * statuses and sizes; never params, tool output, prompts or environment values.
 * The redact list below is the second line of defence, not the first.
 */
export function createLogger(home: VenomHome, app: string): Logger {
  // Opened by Venom, not by pino: a log planted as a symlink is refused, never followed.
  const destination = new TurnBatchedFile(openPrivateAppend(home.log(app)));
  return pino(
    {
      base: { app, pid: process.pid },
      redact: { paths: ["params", "arguments", "env", "content", "*.secret", "*.token", "*.apiKey"], censor: "[redacted]" },
    },
    destination,
  );
}

/** The line a finished tool call leaves in the log. */
export type CallLog = (tool: string, status: ToolStatus, ms: number) => void;

/**
 * The one line every tool call leaves. Its fields cannot hold a secret (a tool
 * name from the session's snapshot, a status, a duration) and its signature
 * admits no other, so it skips the redaction pass every other line takes:
 * that pass was about 2 µs of each call in the RPC floor (docs/benchmarks.md).
 */
export function callLog(logger: Logger): CallLog {
  const unredacted = logger.child({}, { redact: [] });
  return (tool, status, ms) => unredacted.info({ tool, status, ms }, "tool call");
}

/** Every file with lines still waiting: written out when the process exits, however it exits through Node. */
const unwritten = new Set<TurnBatchedFile>();
process.on("exit", () => {
  for (const file of unwritten) file.flushSync();
});

/**
 * The log file, written with one write(2) per turn of the event loop instead
 * of one per line: under load a turn answers many calls, and a synchronous
 * write for each of their lines was a large share of the daemon's time in the
 * RPC floor (docs/benchmarks.md). A line is written at the end of the turn that
 * logged it (setImmediate), so a call's line is on disk before anything of a
 * later turn is answered; whatever is pending when the process exits (a stop,
 * a handled signal, process.exit, an uncaught exception) is written by the
 * "exit" handler above. Only a death Node cannot see (SIGKILL, a native crash)
 * loses the lines of the one turn it interrupts.
 */
export class TurnBatchedFile {
  #lines: string[] = [];

  constructor(private readonly fd: number) {}

  write(line: string): boolean {
    if (this.#lines.length === 0) {
      unwritten.add(this);
      setImmediate(() => this.flushSync());
    }
    this.#lines.push(line);
    return true;
  }

  flushSync(): void {
    if (this.#lines.length === 0) return;
    const bytes = Buffer.from(this.#lines.join(""), "utf8");
    this.#lines = [];
    unwritten.delete(this);
    try {
      // A regular file takes the whole write; the loop is for the rare short write.
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.fd, bytes, offset);
    } catch (error) {
      // A log that cannot be written (a full disk) must not take the daemon and its sessions down.
      process.stderr.write(`venom: could not write the log: ${(error as Error).message}\n`);
    }
  }
}
