// Errors thrown by the bindings. Messages carry only the syscall name, the
// errno name and a short description: never a path or any data, because these
// errors travel into logs and across process boundaries.

interface ErrnoInfo {
  readonly code: string;
  readonly description: string;
}

// Linux errno values. x86_64 and aarch64 both use the asm-generic numbering,
// so one table serves every supported arch (a test cross-checks it against
// Node's os.constants.errno).
const ERRNO_TABLE: ReadonlyMap<number, ErrnoInfo> = new Map(
  (
    [
      [1, "EPERM", "operation not permitted"],
      [2, "ENOENT", "no such file or directory"],
      [3, "ESRCH", "no such process"],
      [4, "EINTR", "interrupted system call"],
      [5, "EIO", "input/output error"],
      [9, "EBADF", "bad file descriptor"],
      [11, "EAGAIN", "resource temporarily unavailable"],
      [7, "E2BIG", "argument list too long / too many Landlock layers"],
      [12, "ENOMEM", "out of memory"],
      [13, "EACCES", "permission denied"],
      [17, "EEXIST", "file exists"],
      [18, "EXDEV", "cross-device link / escapes beneath"],
      [20, "ENOTDIR", "not a directory"],
      [21, "EISDIR", "is a directory"],
      [22, "EINVAL", "invalid argument"],
      [28, "ENOSPC", "no space left on device"],
      [36, "ENAMETOOLONG", "file name too long"],
      [38, "ENOSYS", "function not implemented"],
      [39, "ENOTEMPTY", "directory not empty"],
      [40, "ELOOP", "too many symbolic links / magic link refused"],
      [88, "ENOTSOCK", "not a socket"],
      [92, "ENOPROTOOPT", "protocol option not available"],
      [95, "EOPNOTSUPP", "operation not supported"],
    ] as const
  ).map(([errno, code, description]) => [errno, { code, description }]),
);

/** The symbolic name of a Linux errno, or "E<number>" for ones not in the table. */
export function errnoName(errno: number): string {
  return ERRNO_TABLE.get(errno)?.code ?? `E${errno}`;
}

export class NativeError extends Error {
  /** Errno name, e.g. "EXDEV"; "E<number>" for uncommon values. */
  readonly code: string;
  readonly errno: number;
  /** The syscall (or libc function) that failed, e.g. "openat2". */
  readonly syscall: string;

  constructor(syscall: string, errno: number) {
    const info = ERRNO_TABLE.get(errno);
    const code = info?.code ?? `E${errno}`;
    super(`${syscall} failed: ${code} (${info?.description ?? "unrecognised errno"})`);
    this.name = "NativeError";
    this.code = code;
    this.errno = errno;
    this.syscall = syscall;
  }
}
