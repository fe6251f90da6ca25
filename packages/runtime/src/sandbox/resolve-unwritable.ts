import { lstatSync, readlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin } from "../path-within.js";

/** As the kernel's own limit on symlinks followed in one lookup. */
const MAX_LINKS = 40;

/**
 * The canonical path of `path`, resolved one component at a time, or
 * undefined when that resolution would read a name in one of `writable`
 * (canonical directories a confined process may write) or the path does not
 * resolve. Such a path lies beneath a writable directory, so a rule for it
 * adds no right; and a confined process could have replaced a component
 * with a symlink, which realpath would follow wherever it leads.
 */
export function resolveUnwritable(path: string, writable: readonly string[]): string | undefined {
  const pending = path.split("/").filter((part) => part !== "" && part !== ".");
  let resolved = "/";
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === "..") {
      resolved = dirname(resolved);
      continue;
    }
    if (writable.some((root) => isWithin(root, resolved))) return undefined;
    const next = join(resolved, part);
    let link: string | undefined;
    try {
      link = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      return undefined;
    }
    if (link === undefined) {
      resolved = next;
      continue;
    }
    if (++links > MAX_LINKS) return undefined;
    pending.unshift(...link.split("/").filter((part) => part !== "" && part !== "."));
    if (link.startsWith("/")) resolved = "/";
  }
  return resolved;
}
