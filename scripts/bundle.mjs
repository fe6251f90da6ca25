// `node ../../scripts/bundle.mjs` from an app, after tsc (its package.json
// "build"): bundles the app's CLI, src/main.ts, into dist/main.js — the file
// "bin" and testkit run — so that a client command such as `venom-mux ls`
// loads one file instead of a tree of ES modules (issue 11).
//
// What the CLI loads with import() (the configuration and its zod schemas,
// the attached client, a login) goes to chunks in dist/chunks/, loaded only
// when that import() runs. The daemon (`./app.js`, imported by `serve` only)
// is not bundled: `serve` loads tsc's dist/app.js. Native modules stay
// external; @venom/native, which the client loads for its SO_PEERCRED check,
// is bundled (its index imports every binding: ~13 ms of module loading) and
// finds its addon (dist/peercred.node) and koffi relative to the chunk, so each
// app depends on @venom/native and koffi itself.
// Every output keeps its source map.
//
// zod is imported as a namespace (`import * as z from "zod"`) everywhere, so
// that esbuild keeps only the parts of zod that are used: imported as
// `{ z }`, the whole of zod (every locale, JSON Schema, codegen) went into the
// configuration's chunk, 780 KB instead of 210 KB, and `venom-orch agents
// list` paid to compile it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const app = process.cwd();
const main = join(app, "src", "main.ts");
const dist = join(app, "dist");

const daemonUnbundled = {
  name: "daemon-unbundled",
  setup(build) {
    build.onResolve({ filter: /^\.\/app\.js$/ }, (args) => (args.importer === main ? { path: "./app.js", external: true } : undefined));
  },
};

// Node's built-in modules are required, not imported: an ES import of a
// built-in makes Node build an ES facade of all its exports, which reads every
// lazy getter on them (fs.ReadStream loads the streams, util's
// transferableAbortSignal the AbortController): about 5% of
// `venom-echo status`'s CPU in a profile. esbuild reads a required module's
// exports where they are used, so only what the CLI touches loads. (A dynamic
// import() of a built-in stays one.)
const builtinsRequired = {
  name: "builtins-required",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === "import-statement" ? { path: args.path, namespace: "builtin" } : { path: args.path, external: true },
    );
    build.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
    }));
  },
};

rmSync(join(dist, "chunks"), { recursive: true, force: true });
await build({
  entryPoints: { main },
  outdir: dist,
  chunkNames: "chunks/[name]-[hash]",
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: ["node-pty", "koffi"],
  plugins: [daemonUnbundled, builtinsRequired],
  banner: {
    js: [
      'import __venomModule from "node:module";',
      // Where Node offers a V8 compile cache (22+), what loads after this line uses it; Node 20 has none.
      "__venomModule.enableCompileCache?.();",
      // For a CommonJS dependency bundled into a chunk (pino's, under `agents login`).
      "const require = __venomModule.createRequire(import.meta.url);",
    ].join("\n"),
  },
  logLevel: "warning",
});
