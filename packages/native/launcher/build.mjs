// `node launcher/build.mjs` from packages/native (its package.json "build"):
// compiles the C sandbox launcher, venom-sandbox.c, into dist/venom-sandbox.
// Without a C compiler no launcher is left in dist: @venom/runtime then
// confines through its Node launcher, and hello/status name which is in use.
import { fileURLToPath } from "node:url";
import { compileC } from "../build-c.mjs";

compileC({
  source: fileURLToPath(new URL("./venom-sandbox.c", import.meta.url)),
  output: "venom-sandbox",
  flags: [],
  missing: "the sandbox launcher is not built; confined launches use the slower Node launcher",
});
