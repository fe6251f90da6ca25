import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/**
 * Where something a command starts should run, as tmux's `new -c`: DIR taken
 * from the directory the command runs in, else that directory when it is
 * inside the session's workspace; else nothing, which the daemon takes as the
 * workspace root. The daemon checks the directory itself.
 */
export function startIn(dir: string | undefined, workspace: string | null): { cwd?: string } {
  if (dir !== undefined) return { cwd: resolve(dir) };
  if (workspace === null) return {};
  let here: string;
  try {
    here = realpathSync(process.cwd());
  } catch {
    return {};
  }
  const inside = relative(workspace, here);
  return inside === ".." || inside.startsWith("../") || isAbsolute(inside) ? {} : { cwd: here };
}
