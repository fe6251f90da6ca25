import { check, cInt, cPath, libc } from "./libc.js";

// Plain *at() directory operations relative to a directory fd, so callers
// holding a dirfd (e.g. from openBeneath with O_PATH|O_DIRECTORY) never
// re-resolve the directory's own path. Note that, unlike openBeneath, these
// do NOT confine `name`: pass single path components, not untrusted paths.

/** mkdirat(2): creates directory `name` in `dirfd` (mode is masked by umask). */
export function mkdirAt(dirfd: number, name: string, mode: number): void {
  const { mkdirat } = libc();
  check("mkdirat", mkdirat(cInt("dirfd", dirfd), cPath("name", name), cInt("mode", mode, 0)));
}

/** renameat(2): atomically moves oldName to newName, replacing newName if it exists. */
export function renameAt(oldDirfd: number, oldName: string, newDirfd: number, newName: string): void {
  const { renameat } = libc();
  check("renameat", renameat(cInt("oldDirfd", oldDirfd), cPath("oldName", oldName), cInt("newDirfd", newDirfd), cPath("newName", newName)));
}

/** unlinkat(2): removes a file, or an empty directory when flags include AT_REMOVEDIR. */
export function unlinkAt(dirfd: number, name: string, flags = 0): void {
  const { unlinkat } = libc();
  check("unlinkat", unlinkat(cInt("dirfd", dirfd), cPath("name", name), cInt("flags", flags, 0)));
}
