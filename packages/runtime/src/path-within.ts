import { sep } from "node:path";

/** Is `path` the directory `root` or inside it? Both must already be canonical. */
export function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
