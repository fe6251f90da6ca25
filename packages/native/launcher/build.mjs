// `node launcher/build.mjs` from packages/native (its package.json "build"):
// compiles the C sandbox launcher, venom-sandbox.c, into dist/venom-sandbox
// with the system C compiler ($CC, else `cc`). Without a compiler the build
// still succeeds, says so, and leaves no launcher in dist: @venom/runtime then
// confines through its Node launcher, and hello/status name which is in use.
// A compiler that rejects the source fails the build; a warning does not (a newer
// compiler on a user's machine may warn where this one did not).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = fileURLToPath(new URL("./venom-sandbox.c", import.meta.url));
const output = fileURLToPath(new URL("../dist/venom-sandbox", import.meta.url));
const compiler = process.env.CC || "cc";

mkdirSync(fileURLToPath(new URL("../dist/", import.meta.url)), { recursive: true });
rmSync(output, { force: true });
const result = spawnSync(compiler, ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-o", output, source], { stdio: "inherit" });
if (result.error?.code === "ENOENT") {
  console.warn(
    `@venom/native: no C compiler (${compiler}): the sandbox launcher is not built; confined launches use the slower Node launcher`,
  );
} else if (result.error || result.status !== 0) {
  console.error(`@venom/native: ${compiler} failed to compile ${source}`);
  process.exit(1);
}
