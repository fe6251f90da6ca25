import { accessSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * dist/`name`, a program this package's build compiled with the system C
 * compiler (build-c.mjs), whether this module runs from dist/ or (under
 * vitest) from src/; null when the build had no C compiler.
 */
function builtProgram(name: string): string | null {
  const file = fileURLToPath(new URL(`../dist/${name}`, import.meta.url));
  try {
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return null;
  }
}

/** The C sandbox launcher (launcher/venom-sandbox.c), or null. */
export function sandboxLauncherPath(): string | null {
  return builtProgram("venom-sandbox");
}

/** The program that sets a pty's settings and execs a pane's program (pty-exec/venom-pty-exec.c), or null. */
export function ptyExecPath(): string | null {
  return builtProgram("venom-pty-exec");
}
