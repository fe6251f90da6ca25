import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * A small private file's bytes, or null when it is missing, not a regular file
 * or over `maxBytes`. It is opened without following a symlink and without
 * waiting on a FIFO, so a planted link or pipe is skipped, never followed.
 */
export function readSmallFile(path: string, maxBytes: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return null;
    const buffer = Buffer.alloc(stat.size);
    const length = readSync(fd, buffer, 0, stat.size, 0);
    return buffer.subarray(0, length);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
