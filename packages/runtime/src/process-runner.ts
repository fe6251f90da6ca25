import { spawn } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import { afterRecord } from "@venom/native";
import { CallDeadline, ToolFailure } from "@venom/proto";
import { spawnedChild } from "./adopted.js";
import { isWithin } from "./path-within.js";
import {
  groupMembers,
  isSameGroup,
  killGroup,
  type ProcessRef,
  processStat,
  reapAdopted,
  signalGroup,
  verifiedMembers,
  waitUntil,
} from "./proc.js";
import { sandboxedCommand } from "./sandbox/launch.js";
import type { SandboxProfile } from "./sandbox/plan.js";

// Running one process for a tool call (conformance/spec/design.md, "Containment"): a new process
// group, a wall-clock timeout, bounded combined output, cancel = TERM to the
// group then KILL after 2 s, deadline = KILL at once. The call ends when the
// direct child exits: a descendant holding the output pipes cannot extend it,
// and no member of the group outlives the call. Members are signalled through
// pidfds after a start-time check (proc.ts), never with kill(-pgid). This
// contains accidents, not a hostile child: a process that calls setsid() or
// asks another service to start it leaves the group and is not followed.

export interface SpawnInfo {
  pid: number;
  /** The child leads its own group (and session), so pgid === pid. */
  pgid: number;
  startTime: number;
}

export interface RunProcessOptions {
  /** Executable and arguments, no shell. Exactly one of argv and command. */
  argv?: string[];
  /** Run as `/bin/bash -lc <command>`. */
  command?: string;
  /** Absolute or relative to the workspace; must resolve (symlinks followed) to an existing directory inside it. */
  cwd: string;
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
  /** The combined stdout+stderr kept: its last maxOutputBytes bytes. */
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Confine the process (and its descendants) with Landlock through the sandbox launcher, one layer a profile; refused before spawn if the kernel cannot. */
  sandbox?: SandboxProfile | readonly SandboxProfile[];
  /**
   * Called right after spawn (e.g. to write a delegation record) and awaited;
   * if it throws, the group is killed and the error rethrown.
   */
  onSpawn?: (info: SpawnInfo) => void | Promise<void>;
  /**
   * The file of the delegation record onSpawn writes: the program starts only once it exists (native's
   * start-gate.ts), so none of it runs unrecorded. A program that cannot run then exits 127 or 126.
   */
  record?: string;
}

export interface RunProcessResult {
  exitCode: number | null;
  signal: string | null;
  /** The tail of the combined output; when truncated, prefixed with a line saying how many bytes were cut. */
  output: string;
  /** Bytes the process wrote in total. */
  outputBytes: number;
  truncated: boolean;
  /** Killed at the timeout or at the caller's deadline (CallDeadline). */
  timedOut: boolean;
  /** Stopped because the caller cancelled. */
  cancelled: boolean;
}

const CANCEL_GRACE_MS = 2_000;
// After the child exits, how long output still in the pipes may take to arrive.
const DRAIN_GRACE_MS = 100;
// setTimeout's limit; a longer delay would fire at once.
const MAX_TIMEOUT_SECONDS = Math.floor(0x7fffffff / 1000);

/**
 * The canonical directory a process may start in: `..` is refused outright,
 * symlinks are followed now, and the result must be an existing directory
 * inside the canonical workspace. Between this check and the child's chdir a
 * concurrent rename could still move it; that widens nothing, since the child
 * runs with the user's full permissions anyway (conformance/spec/security-model.txt, "Tool rules").
 */
export function resolveCwd(cwd: string, workspaceRoot: string): string {
  let root: string;
  try {
    root = realpathSync(workspaceRoot);
  } catch {
    throw new ToolFailure("the workspace directory does not exist");
  }
  if (cwd.includes("\0")) throw new ToolFailure("cwd contains a NUL byte");
  if (cwd.split("/").includes("..")) throw new ToolFailure("cwd: parent traversal (..) is refused");
  let real: string;
  try {
    real = realpathSync(isAbsolute(cwd) ? cwd : resolve(root, cwd));
  } catch {
    throw new ToolFailure("cwd: no such directory");
  }
  if (!isWithin(root, real)) throw new ToolFailure("cwd resolves outside the workspace (symlinks are followed)");
  if (!statSync(real).isDirectory()) throw new ToolFailure("cwd is not a directory");
  return real;
}

export async function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  const [program, programArgs] = commandLine(options);
  const command = options.sandbox
    ? sandboxedCommand(options.sandbox, [program, ...programArgs], options.env)
    : { file: program, args: programArgs, env: options.env };
  const { env } = command;
  const { file, args } = options.record ? afterRecord(options.record, command.file, command.args) : command;
  const { timeoutSeconds, maxOutputBytes, signal } = options;
  if (!(timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS))
    throw new TypeError(`timeoutSeconds must be in (0, ${MAX_TIMEOUT_SECONDS}]`);
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0) throw new TypeError("maxOutputBytes must be a non-negative integer");
  const cwd = resolveCwd(options.cwd, options.workspaceRoot);
  signal.throwIfAborted();

  // detached: setsid() in the child, so it leads a new session and process group.
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid !== undefined) child.once("exit", spawnedChild(child.pid));
  const output = new TailBuffer(maxOutputBytes);
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
  const exit = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.once("exit", (code, sig) => done({ code, signal: sig })),
  );
  const spawnFailure = new Promise<Error>((done) => child.on("error", done));
  const pid = child.pid;
  if (pid === undefined) {
    const code = ((await spawnFailure) as NodeJS.ErrnoException).code;
    throw new ToolFailure(`could not start the process${code && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}`);
  }
  // Node has not reaped the child yet (that needs a turn of the event loop), so
  // its /proc entry exists even if it already exited.
  const startTime = processStat(pid)?.startTime;
  if (startTime === undefined) throw new Error("the spawned process has no /proc entry");
  const anchor: ProcessRef = { pid, startTime };

  let timedOut = false;
  let cancelled = false;
  let graceEnds: number | undefined;
  const signalAll = (sig: NodeJS.Signals) => {
    try {
      signalGroup(pid, anchor, sig);
    } catch {
      // pidfds unavailable (e.g. out of fds): the unreaped direct child at
      // least cannot be a reused pid; the final killGroup reports the error.
      child.kill(sig);
    }
  };
  const kill = () => signalAll("SIGKILL");
  const onDeadline = () => {
    timedOut = true;
    kill();
  };
  const deadline = setTimeout(onDeadline, timeoutSeconds * 1000);
  let escalation: NodeJS.Timeout | undefined;
  const onAbort = () => {
    if (signal.reason instanceof CallDeadline) return onDeadline();
    cancelled = true;
    graceEnds = Date.now() + CANCEL_GRACE_MS;
    signalAll("SIGTERM");
    escalation = setTimeout(kill, CANCEL_GRACE_MS);
  };
  signal.addEventListener("abort", onAbort, { once: true });

  let hookFailure: { error: unknown } | undefined;
  try {
    await options.onSpawn?.({ pid, pgid: pid, startTime });
  } catch (error) {
    hookFailure = { error };
    kill();
  }

  const status = await exit;
  clearTimeout(deadline);
  signal.removeEventListener("abort", onAbort);
  await drained([child.stdout, child.stderr], DRAIN_GRACE_MS);
  child.stdout.destroy();
  child.stderr.destroy();
  // A cancelled group keeps the rest of its grace period even after the child exits.
  if (graceEnds !== undefined) await waitUntil(() => verifiedMembers(pid, anchor).length === 0, graceEnds);
  clearTimeout(escalation);
  await killGroup(pid, anchor);
  // Members adopted by this process (a subreaper) are zombies now. The direct
  // child is not among them (Node reaped it before "exit"); the group check
  // keeps a later child of ours that got the same number from being taken.
  if (isSameGroup(pid, anchor)) reapAdopted(groupMembers(pid).map((member) => member.pid));
  if (hookFailure) throw hookFailure.error;

  return {
    exitCode: status.code,
    signal: status.signal,
    output: output.text(),
    outputBytes: output.total,
    truncated: output.truncated,
    timedOut,
    cancelled,
  };
}

function commandLine(options: RunProcessOptions): [string, string[]] {
  const { argv, command } = options;
  if ((argv === undefined) === (command === undefined)) throw new TypeError("runProcess needs exactly one of argv and command");
  if (command !== undefined) return ["/bin/bash", ["-lc", command]];
  const [file, ...args] = argv as string[];
  if (file === undefined || file === "") throw new TypeError("argv must name an executable");
  return [file, args];
}

/** Resolves when both streams ended, or after `ms`, whichever is first. */
async function drained(streams: Readable[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = streams.map(
    (stream) =>
      new Promise<void>((done) => {
        if (stream.readableEnded || stream.destroyed) return done();
        stream.once("end", done);
        stream.once("close", done);
      }),
  );
  await Promise.race([Promise.all(ended), new Promise<void>((done) => (timer = setTimeout(done, ms)))]);
  clearTimeout(timer);
}

/** Keeps the last `max` bytes of what is pushed, counting everything. */
class TailBuffer {
  readonly #max: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  total = 0;

  constructor(max: number) {
    this.#max = max;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
    while (this.#kept > this.#max) {
      const first = this.#chunks[0] as Buffer;
      const excess = this.#kept - this.#max;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#kept -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#kept -= excess;
      }
    }
  }

  get truncated(): boolean {
    return this.total > this.#kept;
  }

  text(): string {
    let tail = Buffer.concat(this.#chunks);
    if (!this.truncated) return tail.toString("utf8");
    // Start on a character boundary: skip UTF-8 continuation bytes cut from their lead byte.
    let skip = 0;
    while (skip < 3 && skip < tail.length && ((tail[skip] as number) & 0xc0) === 0x80) skip++;
    tail = tail.subarray(skip);
    return `[output truncated: the first ${this.total - tail.length} of ${this.total} bytes were cut]\n${tail.toString("utf8")}`;
  }
}
