import { NativeError } from "./errors.js";
import { check, cInt, cPath, libc } from "./libc.js";
import { closeOnExecAboveStderr } from "./process-guard.js";

// Replacing the calling process with another program, the way a launcher
// that prepared the process (e.g. restricted it with Landlock) hands over.
// Node itself never execs, so the state it leaves behind for its own use is
// undone first: its stdio fds are close-on-exec and it ignores SIGPIPE and
// SIGXFSZ, both of which would otherwise reach the new program; and an fd
// above stderr it inherited need not be, which the new program must not hold.

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;
/** Signals 1-31 and the real-time ones; SIGKILL/SIGSTOP and glibc's reserved 32/33 refuse a change, harmlessly. */
const LAST_SIGNAL = 64;

/**
 * execve(2): runs `path` with exactly `argv` (argv[0] included) and `env`,
 * without a shell. Stdio fds 0-2 are made inheritable, every other fd
 * close-on-exec, and every signal disposition is reset to default just before. Returns only by throwing a
 * NativeError, when the kernel refused the exec (the process is unchanged).
 */
export function execve(path: string, argv: readonly string[], env: Readonly<Record<string, string>>): never {
  cPath("path", path);
  for (const [i, arg] of argv.entries()) cPath(`argv[${i}]`, arg);
  const envp = Object.entries(env).map(([name, value]) => {
    if (name === "" || name.includes("=")) throw new TypeError("environment variable names must be non-empty and contain no '='");
    return cPath(`env.${name}`, `${name}=${value}`);
  });
  const { fcntl, signal, execve: exec } = libc();
  closeOnExecAboveStderr();
  for (const fd of [0, 1, 2]) {
    const flags = fcntl(fd, F_GETFD, "int", 0);
    // A closed stdio fd stays closed, as it would for any exec.
    if (flags >= 0 && (flags & FD_CLOEXEC) !== 0) check("fcntl(F_SETFD)", fcntl(fd, F_SETFD, "int", flags & ~FD_CLOEXEC));
  }
  for (let signo = 1; signo <= LAST_SIGNAL; signo++) signal(cInt("signo", signo, 1), null);
  exec(path, [...argv, null], [...envp, null]);
  throw new NativeError("execve", libc().koffi.errno());
}
