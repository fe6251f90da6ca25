import { NativeError } from "./errors.js";
import { check, cInt, libc } from "./libc.js";

// flock(2) operations (asm-generic, the same on every supported arch).
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = 11;

/**
 * flock(fd, LOCK_EX | LOCK_NB): true when this open file now holds the
 * exclusive lock, false when another open file of the same file holds it.
 * The kernel drops the lock when the last descriptor of this open file
 * closes, so a process that dies holding it never leaves it held.
 */
export function tryLockExclusive(fd: number): boolean {
  const { flock, koffi } = libc();
  const result = flock(cInt("fd", fd), LOCK_EX | LOCK_NB);
  if (result < 0) {
    const errno = koffi.errno();
    if (errno === EWOULDBLOCK) return false;
    throw new NativeError("flock", errno);
  }
  return true;
}

/** flock(fd, LOCK_UN). */
export function unlock(fd: number): void {
  check("flock", libc().flock(cInt("fd", fd), LOCK_UN));
}
