// `node ../../scripts/bundle.mjs` from an app, after tsc (its package.json
// "build"): bundles the app's CLI, src/main.ts, into dist/main.cjs — the file
// "bin" and testkit run — so that a client command such as `venom-mux ls`
// loads one file instead of a tree of ES modules (issue 11).
//
// What the CLI loads with import() (the configuration and its zod schemas,
// the attached client, a login) goes to chunks in dist/chunks/, loaded only
// when that import() runs. The daemon (`./app.js`, imported by `serve` only)
// is not bundled: `serve` loads tsc's dist/app.js. Native modules stay
// external; @venom/native's peer module, which the client loads for its
// SO_PEERCRED check, is bundled and requires koffi (where its addon was not
// built) relative to the chunk, so each app depends on koffi itself.
// The addon that answers that check without koffi (packages/native/addon) is
// copied next to the bundled file that loads it, which finds it there by path:
// resolving a package costs a few milliseconds of a client's start.
// Every output keeps its source map.
//
// zod is imported as a namespace (`import * as z from "zod"`) everywhere, so
// that esbuild keeps only the parts of zod that are used: imported as
// `{ z }`, the whole of zod (every locale, JSON Schema, codegen) went into the
// configuration's chunk, 780 KB instead of 210 KB, and `venom-orch agents
// list` paid to compile it.
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
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

// packages/native/dist/peer.js looks for the addon in its own dist/; in the
// bundle it looks next to itself, where it is copied after the build.
const nativeDist = fileURLToPath(new URL("../packages/native/dist/", import.meta.url));
const ADDON = "peercred.node";
const addonNextToBundle = {
  name: "addon-next-to-bundle",
  setup(build) {
    build.onLoad({ filter: /[\\/]peer\.js$/ }, (args) => {
      if (args.path !== join(nativeDist, "peer.js")) return undefined;
      const source = readFileSync(args.path, "utf8");
      const own = `new URL("../dist/${ADDON}", import.meta.url)`;
      if (!source.includes(own)) throw new Error(`bundle: ${args.path} no longer locates its addon as ${own}`);
      return { contents: source.replace(own, `new URL("./${ADDON}", import.meta.url)`), resolveDir: nativeDist };
    });
  },
};

// Two passes. esbuild splits code into chunks only in ES-module output, and an
// ES-module entry costs a Node 20 CLI its ESM loader (about 16 more internal
// modules, fs/promises and readline among them, and an asynchronous read of
// each chunk): about 0.1-0.15× \`node -e 0\` of every command's start, measured.
// So the first pass splits into ES modules in a scratch directory, and the
// second turns each of them into CommonJS: dist/main.cjs (what "bin" runs)
// and dist/chunks/*.cjs, required when their import() runs. Each keeps a
// source map to the TypeScript (esbuild reads the first pass's maps).
const scratch = join(dist, ".esm");
for (const old of [join(dist, "chunks"), scratch, join(dist, ADDON)]) rmSync(old, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { main },
  outdir: scratch,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: ["node-pty", "koffi"],
  plugins: [daemonUnbundled, addonNextToBundle],
  metafile: true,
  logLevel: "warning",
});

// The second pass keeps every import external: a built-in is required (an ES
// import of one would build a facade of all its exports, reading every lazy
// getter: fs.ReadStream loads the streams); a chunk is required from its
// .cjs file.
const cjsImports = {
  name: "cjs-imports",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.kind === "entry-point" ? undefined : { path: args.path.replace(/^(\.\.?\/(?!app\.js$).*)\.js$/, "$1.cjs"), external: true },
    );
  },
};
const esmOutputs = Object.keys(metafile.outputs).filter((output) => output.endsWith(".js"));
await build({
  entryPoints: esmOutputs.map((output) => join(app, output)),
  outbase: scratch,
  outdir: dist,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // import() of a chunk becomes a require(), so that no ES module is loaded on the way.
  supported: { "dynamic-import": false },
  sourcemap: true,
  define: { "import.meta.url": "__venomModuleUrl" },
  plugins: [cjsImports],
  banner: {
    js: [
      // Before anything else, or the module would not be strict as the ES modules it comes from.
      '"use strict";',
      'const __venomModuleUrl = require("node:url").pathToFileURL(__filename).href;',
      // Where Node offers a V8 compile cache (22+), what loads after this line uses it; Node 20 has none.
      'require("node:module").enableCompileCache?.();',
    ].join("\n"),
  },
  logLevel: "warning",
});
rmSync(scratch, { recursive: true, force: true });
// The daemon (./app.js, tsc's ES modules, loaded by `serve` only) stays an import(): Node before 20.19 cannot
// require() an ES module. Padded to the same length, so the source map of the rest of that line still holds.
const entry = join(dist, "main.cjs");
const required = 'Promise.resolve().then(() => __toESM(require("./app.js"), 1))';
const code = readFileSync(entry, "utf8");
if (code.split(required).length !== 2) throw new Error(`bundle: ${entry} should require ./app.js exactly once, as ${required}`);
writeFileSync(entry, code.replace(required, 'import("./app.js")'.padEnd(required.length)));
chmodSync(entry, 0o755);
// dist/main.js (tsc's, unbundled) becomes the bundle's ES-module door, for whatever runs that path.
writeFileSync(
  join(dist, "main.js"),
  '#!/usr/bin/env node\n// The CLI is dist/main.cjs (scripts/bundle.mjs); this file loads it for callers of this path.\nimport "./main.cjs";\n',
  { mode: 0o755 },
);
rmSync(join(dist, "main.js.map"), { force: true });

// Without a C compiler or Node's headers the addon was not built: the client then reads SO_PEERCRED through koffi.
const peerInput = relative(app, join(nativeDist, "peer.js"));
for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
  if (!(peerInput in inputs) || !existsSync(join(nativeDist, ADDON))) continue;
  copyFileSync(join(nativeDist, ADDON), join(dist, relative(scratch, join(app, dirname(output))), ADDON));
}
