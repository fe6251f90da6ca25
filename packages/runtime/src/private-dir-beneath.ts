import { chmodSync, closeSync, fstatSync, openSync } from "node:fs";
import { join } from "node:path";
import { mkdirAt, NativeError, O_DIRECTORY, O_NOFOLLOW, O_PATH, openBeneath } from "@venom/native";
import { assertPrivate, UnsafeHomeError } from "./home.js";

/**
 * privateDir for `relative` (one or more components) inside `root`, a
 * directory privateDir already accepted, when a confined process may write
 * `root` (an agent's home): each component is created and opened by fd, so a
 * symlink it planted on the way is refused, never followed. mkdirSync's
 * recursive walk and chmodSync by path would follow one out of `root`.
 */
export function privateDirBeneath(root: string, relative: string): void {
  let fd = openSync(root, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  let path = root;
  try {
    for (const part of relative.split("/").filter((part) => part !== "")) {
      if (part === "." || part === "..") throw new TypeError(`${relative}: not a plain relative path`);
      path = join(path, part);
      try {
        mkdirAt(fd, part, 0o700);
      } catch (error) {
        if (!(error instanceof NativeError && error.code === "EEXIST")) throw error;
      }
      let next: number;
      try {
        next = openBeneath(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        if (error instanceof NativeError && error.code === "ENOTDIR")
          throw new UnsafeHomeError(`${path}: refused: it is a symlink or not a directory; Venom's directories must be real directories`);
        throw error;
      }
      closeSync(fd);
      fd = next;
      const stat = fstatSync(fd);
      assertPrivate(path, stat, "directory");
      // Through the fd (an O_PATH fd takes no fchmod): the directory checked is the one changed.
      if ((stat.mode & 0o077) !== 0) chmodSync(`/proc/self/fd/${fd}`, 0o700);
    }
  } finally {
    closeSync(fd);
  }
}
