import { constants as fsConstants } from "node:fs";
import { O_CLOEXEC, RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS } from "./constants.js";
import { NativeError } from "./errors.js";
import { cInt, cPath, libc } from "./libc.js";
import { syscallNumber } from "./syscalls.js";

// openat2(2) confined to a directory: the kernel refuses any resolution that
// would leave `dirfd` (absolute paths, "..", absolute or escaping symlinks)
// with EXDEV, and refuses /proc-style magic links with ELOOP. This is checked
// atomically during lookup, unlike userspace realpath-then-open checks.

const EAGAIN = 11;
// With RESOLVE_BENEATH the kernel answers EAGAIN when a concurrent rename
// might have let ".." escape; retrying is the documented remedy.
const EAGAIN_ATTEMPTS = 8;
// Part of every arch's O_TMPFILE (which also sets O_DIRECTORY).
const O_TMPFILE_BIT = 0o20000000;
// Node's fs.openSync default when creating.
const DEFAULT_CREATE_MODE = 0o666;

/**
 * Opens `path` relative to `dirfd` without ever resolving outside it.
 * `flags` are Node fs.constants O_* values (plus O_PATH from this package);
 * O_CLOEXEC is always added. `mode` applies only with O_CREAT/O_TMPFILE
 * (openat2 rejects a mode otherwise, so it is dropped). Returns the new fd.
 */
export function openBeneath(dirfd: number, path: string, flags: number, mode?: number): number {
  const { syscall, types, koffi } = libc();
  const base = cInt("dirfd", dirfd);
  const target = cPath("path", path);
  const creates = (cInt("flags", flags, 0) & (fsConstants.O_CREAT | O_TMPFILE_BIT)) !== 0;
  const how = {
    flags: flags | O_CLOEXEC,
    mode: creates ? cInt("mode", mode ?? DEFAULT_CREATE_MODE, 0) : 0,
    resolve: RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
  };
  const number = syscallNumber("openat2");
  for (let attempt = 1; ; attempt++) {
    // syscall() reads every variadic argument as a long, so integers are
    // passed as longs rather than ints whose upper register half is undefined.
    const fd = syscall(number, "long", base, "const char *", target, types.openHowPtr, how, "size_t", types.openHowSize);
    if (fd >= 0) return fd;
    const errno = koffi.errno();
    if (errno !== EAGAIN || attempt >= EAGAIN_ATTEMPTS) {
      throw new NativeError("openat2", errno);
    }
  }
}
