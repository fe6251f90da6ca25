import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/**
 * Where something a command starts should run, as tmux's `new -c`: the
 * directory the command runs in when it is inside the session's workspace,
 * else the workspace root (nothing: the daemon takes that as the root); a
 * relative DIR is taken from there (docs/venom-mux.md, `new -c DIR`). The
 * daemon checks the directory itself.
 */
export function startIn(dir: string | undefined, workspace: string | null): { cwd?: string } {
  const here = hereInside(workspace);
  if (dir !== undefined) return { cwd: resolve(here ?? workspace ?? process.cwd(), dir) };
  return here === null ? {} : { cwd: here };
}

/** The directory the command runs in, when it is inside `workspace`. */
function hereInside(workspace: string | null): string | null {
  if (workspace === null) return null;
  let here: string;
  try {
    here = realpathSync(process.cwd());
  } catch {
    return null;
  }
  const inside = relative(workspace, here);
  return inside === ".." || inside.startsWith("../") || isAbsolute(inside) ? null : here;
}

/**
 * The workspace a daemon started from here serves when none is named: the
 * root of the git repository holding this directory (a `.git` directory or
 * file, looked for without running git), else this directory.
 */
export function workspaceHere(): string {
  const here = process.cwd();
  for (let dir = here; ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, ".git"));
      return dir;
    } catch {
      if (dirname(dir) === dir) return here;
    }
  }
}
