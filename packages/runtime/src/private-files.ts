import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync } from "node:fs";
import { assertPrivate, UnsafeHomeError } from "./home.js";

// Files Venom opens by name in its home (logs, config) or a workspace
// (project config) are opened without following a symlink and without
// waiting: O_NOFOLLOW refuses a planted symlink (ELOOP), O_NONBLOCK makes a
// planted FIFO open at once instead of blocking the event loop, and nothing
// is read before fstat says the file is regular.

const NOFOLLOW_NONBLOCK = constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Open (creating 0600) a private file of the home to append to, e.g. a log; refuse a symlink or someone else's file. */
export function openPrivateAppend(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW_NONBLOCK, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new UnsafeHomeError(`${path}: refused: it is a symlink`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    assertPrivate(path, stat, "file");
    if ((stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

export class UnreadableFile extends Error {
  override readonly name = "UnreadableFile";
}

/**
 * Read a whole regular file of at most `maxBytes`, from an fd `open` returns
 * (it is given the open flags to use). undefined when it does not exist.
 * Anything else (a symlink, FIFO, device, directory, a file too big) is an
 * UnreadableFile naming `label` and why.
 */
export function readRegularFile(label: string, open: (flags: number) => number, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = open(constants.O_RDONLY | NOFOLLOW_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new UnreadableFile(`${label}: not a regular file (a symlink is not followed)`);
    if (code === "EXDEV") throw new UnreadableFile(`${label}: not a regular file (it resolves outside its directory)`);
    throw new UnreadableFile(`${label}: cannot be read (${code ?? "error"})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFile(`${label}: not a regular file (a FIFO, device or directory is never read)`);
    if (stat.size > maxBytes) throw new UnreadableFile(`${label}: ${stat.size} bytes, over the ${maxBytes}-byte limit for this file`);
    const buffer = Buffer.alloc(stat.size);
    let got = 0;
    while (got < stat.size) {
      const n = readSync(fd, buffer, got, stat.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buffer.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** An opener for readRegularFile that opens `path` by name. */
export function openByName(path: string): (flags: number) => number {
  return (flags) => openSync(path, flags);
}
