import { accessSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";

// dist/venom-sandbox, whether this module runs from dist/ or (under vitest) from src/.
const LAUNCHER = fileURLToPath(new URL("../dist/venom-sandbox", import.meta.url));

/**
 * The C sandbox launcher this package's build compiled (launcher/venom-sandbox.c),
 * or null when there was no C compiler to build it.
 */
export function sandboxLauncherPath(): string | null {
  try {
    accessSync(LAUNCHER, constants.X_OK);
    return LAUNCHER;
  } catch {
    return null;
  }
}
