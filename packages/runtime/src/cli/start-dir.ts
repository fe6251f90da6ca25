import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

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
