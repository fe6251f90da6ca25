// The one way this package compiles C at build time (launcher/build.mjs and
// addon/build.mjs): the system C compiler ($CC, else `cc`), output in dist/.
// Without a compiler the build still succeeds, says what is missing and what
// is used instead, and leaves nothing in dist. A compiler that rejects the
// source fails the build; a warning does not (a newer compiler on a user's
// machine may warn where this one did not).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiler = process.env.CC || "cc";

/** Compiles `source` into dist/`output`; returns whether it was built. */
export function compileC({ source, output, flags, missing }) {
  const dist = fileURLToPath(new URL("./dist/", import.meta.url));
  const target = `${dist}${output}`;
  mkdirSync(dist, { recursive: true });
  rmSync(target, { force: true });
  const result = spawnSync(compiler, ["-std=gnu11", "-O2", "-Wall", "-Wextra", ...flags, "-o", target, source], { stdio: "inherit" });
  if (result.error?.code === "ENOENT") {
    console.warn(`@venom/native: no C compiler (${compiler}): ${missing}`);
    return false;
  }
  if (result.error || result.status !== 0) {
    console.error(`@venom/native: ${compiler} failed to compile ${source}`);
    process.exit(1);
  }
  return true;
}
