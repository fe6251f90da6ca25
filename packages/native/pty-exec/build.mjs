// `node pty-exec/build.mjs` from packages/native (its package.json "build"):
// compiles venom-pty-exec.c into dist/venom-pty-exec. Without a C compiler no
// program is left in dist: a venom-mux pane's program then starts under a
// one-line shell that runs stty (src/start-gate.ts).
import { fileURLToPath } from "node:url";
import { compileC } from "../build-c.mjs";

compileC({
  source: fileURLToPath(new URL("./venom-pty-exec.c", import.meta.url)),
  output: "venom-pty-exec",
  flags: [],
  missing: "venom-pty-exec is not built; each venom-mux pane starts under sh and stty, two more processes",
});
