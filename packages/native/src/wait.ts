import { constants as osConstants } from "node:os";
import { NativeError } from "./errors.js";
import { cInt, libc } from "./libc.js";
import { type SupportedArch, supportedArch } from "./platform.js";

// Reaping of processes Node did not spawn: orphans adopted through
// PR_SET_CHILD_SUBREAPER. Node (libuv) waits only for the pids it spawned, so
// adopted ones stay zombies until someone waits for them by pid. Only a
// specific pid is ever accepted: waiting for -1 (or a process group) would
// steal exit statuses from libuv, whose child would then never emit "exit".
// Never pass a pid that child_process spawned, for the same reason.

/** waitpid option: return at once (null) if the process has not exited yet. */
export const WNOHANG = 1;
/** errno when `pid` is not an unwaited child of the calling process. */
export const ECHILD = 10;
const EINTR = 4;

// glibc's waitpid(pid, status, options) is wait4(pid, status, options, NULL);
// calling wait4 through the shared syscall() binding avoids binding another
// libc symbol. Not in syscalls.ts: numbers below 424 differ between arches.
const WAIT4: Record<SupportedArch, number> = { x64: 61, arm64: 260 };

export interface WaitResult {
  pid: number;
  /** The raw wait status. */
  status: number;
  /** Exit code when the process exited normally, else null. */
  exitCode: number | null;
  /** The signal that terminated it (e.g. "SIGKILL"), else null. */
  signal: NodeJS.Signals | null;
}

/**
 * waitpid(2) for one specific child (pid > 0). Only WNOHANG is accepted, so
 * stopped or continued states are never reported. With WNOHANG, returns null
 * while the process is still running; without it, blocks the whole thread
 * until it exits. Throws NativeError with errno ECHILD if `pid` is not an
 * unwaited child of this process.
 */
export function waitpid(pid: number, options = 0): WaitResult | null {
  const { syscall, koffi, types } = libc();
  const target = cInt("pid", pid, 1);
  if ((cInt("options", options, 0) & ~WNOHANG) !== 0) throw new TypeError("waitpid: only the WNOHANG option is supported");
  const out = [0];
  for (;;) {
    // Integers go to syscall() as longs: it reads every variadic argument as one.
    const result = syscall(WAIT4[supportedArch()], "long", target, types.intOut, out, "long", options, "void *", null);
    if (result === 0) return null;
    if (result > 0) return decode(result, out[0] as number);
    const errno = koffi.errno();
    if (errno !== EINTR) throw new NativeError("waitpid", errno);
  }
}

function decode(pid: number, status: number): WaitResult {
  const termSignal = status & 0x7f;
  if (termSignal === 0) return { pid, status, exitCode: (status >> 8) & 0xff, signal: null };
  return { pid, status, exitCode: null, signal: signalName(termSignal) };
}

function signalName(signo: number): NodeJS.Signals | null {
  const entry = Object.entries(osConstants.signals).find(([, value]) => value === signo);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}
