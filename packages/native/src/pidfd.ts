import { constants as osConstants } from "node:os";
import { NativeError } from "./errors.js";
import { check, cInt, libc } from "./libc.js";
import { syscallNumber } from "./syscalls.js";

// Process handles that cannot be confused with a later process reusing the
// same pid: signals and exit checks go to exactly the process that was open.

const POLLIN = 0x1;
const POLLNVAL = 0x20;
const EINTR = 4;
const EBADF = 9;

/** pidfd_open(2): a close-on-exec pidfd for `pid`; close it with fs.closeSync. */
export function pidfdOpen(pid: number): number {
  const { syscall } = libc();
  // Integers go to syscall() as longs: it reads every variadic argument as one.
  return check("pidfd_open", syscall(syscallNumber("pidfd_open"), "long", cInt("pid", pid, 1), "long", 0));
}

/** pidfd_send_signal(2): sends `signal` (a name like "SIGKILL", or a number; 0 probes) to the process. */
export function pidfdSendSignal(pidfd: number, signal: NodeJS.Signals | number): void {
  const { syscall } = libc();
  const signo = signalNumber(signal);
  check(
    "pidfd_send_signal",
    syscall(syscallNumber("pidfd_send_signal"), "long", cInt("pidfd", pidfd), "long", signo, "void *", null, "long", 0),
  );
}

/**
 * Whether the process has exited (it may still be an unreaped zombie): a
 * pidfd becomes readable once its process terminates, so a zero-timeout
 * poll answers without blocking.
 */
export function pidfdExited(pidfd: number): boolean {
  const { poll, koffi } = libc();
  // poll() silently skips negative fds; report them like the kernel would.
  if (cInt("pidfd", pidfd) < 0) throw new NativeError("poll", EBADF);
  const entry = { fd: pidfd, events: POLLIN, revents: 0 };
  for (;;) {
    if (poll(entry, 1, 0) >= 0) break;
    const errno = koffi.errno();
    if (errno !== EINTR) throw new NativeError("poll", errno);
  }
  // poll() reports a closed or bogus fd per entry rather than failing.
  if ((entry.revents & POLLNVAL) !== 0) throw new NativeError("poll", EBADF);
  return (entry.revents & POLLIN) !== 0;
}

function signalNumber(signal: NodeJS.Signals | number): number {
  if (typeof signal === "number") return cInt("signal", signal, 0);
  const signo = (osConstants.signals as Partial<Record<string, number>>)[signal];
  if (signo === undefined) throw new TypeError(`unknown signal name: ${String(signal)}`);
  return signo;
}
