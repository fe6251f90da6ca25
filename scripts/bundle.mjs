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
// requires koffi relative to the chunk, so each app depends on koffi itself.
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
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
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

rmSync(join(dist, "chunks"), { recursive: true, force: true });
rmSync(join(dist, ADDON), { force: true });
const { metafile } = await build({
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
  plugins: [daemonUnbundled, builtinsRequired, addonNextToBundle],
  metafile: true,
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

// Without a C compiler or Node's headers the addon was not built: the client then reads SO_PEERCRED through koffi.
const peerInput = relative(app, join(nativeDist, "peer.js"));
for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
  if (peerInput in inputs && existsSync(join(nativeDist, ADDON))) copyFileSync(join(nativeDist, ADDON), join(app, dirname(output), ADDON));
}
