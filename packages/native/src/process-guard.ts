import { readdirSync } from "node:fs";
import { NativeError } from "./errors.js";
import { check, libc } from "./libc.js";
import { syscallNumber } from "./syscalls.js";

// What a daemon does to itself so that the processes it starts, and other
// processes of its user, reach none of what it holds (docs/security-model.md,
// "Descriptors").

const CLOSE_RANGE_CLOEXEC = 4;
const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;
const PR_SET_DUMPABLE = 4;
const UNUSED = ["unsigned long", 0, "unsigned long", 0, "unsigned long", 0] as const;

/**
 * Every fd of this process above stderr becomes close-on-exec, so no program
 * it execs later, or that a child of it execs, inherits one; they stay open
 * here. Node does so for the fds it opens itself, not for those it inherited
 * from its starter above fd 15 nor for a native addon's (node-pty's pty
 * masters). One close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) (Linux 5.11), else
 * an fcntl for each fd /proc lists.
 */
export function closeOnExecAboveStderr(): void {
  const { syscall, fcntl, koffi } = libc();
  const all = ["unsigned int", 3, "unsigned int", 0xffffffff] as const;
  if (syscall(syscallNumber("close_range"), ...all, "unsigned int", CLOSE_RANGE_CLOEXEC) === 0) return;
  const error = new NativeError("close_range", koffi.errno());
  if (error.code !== "ENOSYS" && error.code !== "EINVAL") throw error;
  for (const fd of readdirSync("/proc/self/fd").map(Number)) {
    const flags = fd > 2 ? fcntl(fd, F_GETFD, "int", 0) : -1;
    // -1: a stdio fd, or the one that listed the directory, closed since.
    if (flags >= 0) check("fcntl(F_SETFD)", fcntl(fd, F_SETFD, "int", flags | FD_CLOEXEC));
  }
}

/**
 * prctl(PR_SET_DUMPABLE, 0): processes of the same user without
 * CAP_SYS_PTRACE can no longer ptrace this one or open its /proc entries
 * that ptrace guards (environ, mem, fd, maps), and it leaves no core dump.
 * A program it execs is dumpable again.
 */
export function setNotDumpable(): void {
  const { prctl } = libc();
  check("prctl(PR_SET_DUMPABLE)", prctl(PR_SET_DUMPABLE, "unsigned long", 0, ...UNUSED));
}
