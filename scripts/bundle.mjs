// `node ../../scripts/bundle.mjs` from an app, after tsc (its package.json
// "build"): bundles the app's CLI, src/main.ts, into dist/main.cjs — the file
// "bin" and testkit run — so that a client command such as `venom-mux ls`
// loads one file instead of a tree of ES modules (docs/benchmarks.md).
//
// What the CLI loads with import() (the configuration and its zod schemas,
// the attached client, a login) goes to chunks in dist/chunks/, loaded only
// when that import() runs. The daemon (`./app.js`, imported by `serve` only)
// is a bundle of its own, dist/daemon.cjs: in the CLI's build, the modules it
// shares with the CLI went to shared chunks, and `venom-orch jobs` loaded nine
// files instead of six, some 5-10 ms more in interleaved A/B runs. Loaded as
// tsc's ES modules (some 230 files), the daemon's code took 250-350 ms to load
// on this machine, about a quarter of it zod's 64 locale modules, which zod's
// namespace exports; bundled, the locales are left out. Native modules
// (node-pty, koffi) stay external. Every output keeps its source map.
//
// Each file named on the command line (`bundle.mjs src/screen-worker.ts`) is
// the entry of a worker thread: it is bundled on its own into dist/NAME.cjs,
// which the code that starts the thread names, and tsc's NAME.js is removed so
// that nothing runs it. Loaded as tsc's ES modules with xterm's, venom-mux's
// screen worker answered its first capture some 130 ms after it started;
// bundled, some 95 ms.
//
// Every module keeps its own import.meta.url (ownModuleUrl below): code that
// finds a file next to itself (the screen worker, the built programs, the
// SO_PEERCRED addon, the sandbox launcher, venom-orch's own CLI) finds what
// it found unbundled, whichever output its code lands in.
//
// zod is imported as a namespace (`import * as z from "zod"`) everywhere, so
// that esbuild keeps only the parts of zod that are used: imported as
// `{ z }`, the whole of zod (every locale, JSON Schema, codegen) went into the
// configuration's chunk, 780 KB instead of 210 KB, and `venom-orch agents
// list` paid to compile it.
import { createHash } from "node:crypto";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { build } from "esbuild";

const app = process.cwd();
const src = join(app, "src");
const main = join(src, "main.ts");
const dist = join(app, "dist");
const workers = process.argv.slice(2).map((entry) => join(app, entry));

/** What the first pass writes for an import of the daemon (src/app.ts); the second makes it a path to dist/daemon.cjs. */
const DAEMON = "venom-daemon-bundle";

/**
 * `serve` requires the daemon's own bundle, from whichever module of the CLI imports src/app.ts (the app's CliApp,
 * main.ts or a module of its own): that module may land in a chunk, so the path is made in the second pass.
 */
const daemonApart = {
  name: "daemon-apart",
  setup(build) {
    build.onResolve({ filter: /\/app\.js$/ }, (args) =>
      join(args.resolveDir, args.path) === join(src, "app.js") ? { path: DAEMON, external: true } : undefined,
    );
  },
};

/**
 * A module's import.meta.url becomes the URL of the file tsc wrote for it (an
 * app's src/X.ts is dist/X.js; a package's module already is its dist file),
 * relative to `__venomDist`, the app's dist/ as a file URL, which each
 * output's banner sets.
 */
const ownModuleUrl = {
  name: "own-module-url",
  setup(build) {
    build.onLoad({ filter: /\.(m?js|ts)$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const file = args.path.startsWith(src + sep) ? join(dist, relative(src, args.path)).replace(/\.ts$/, ".js") : args.path;
      const url = `new URL(${JSON.stringify(relative(dist, file).split(sep).join("/"))}, __venomDist).href`;
      return { contents: source.replaceAll("import.meta.url", url), loader: args.path.endsWith(".ts") ? "ts" : "js" };
    });
  },
};

/** The first lines of every output: `up` leads from its directory to dist/. */
function banner(up) {
  return {
    js: [
      // Before anything else, or the module would not be strict as the ES modules it comes from.
      '"use strict";',
      `const __venomDist = require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(up)}, "/")).href;`,
      // Where Node offers a V8 compile cache (22+), what loads after this line uses it; Node 20 has none.
      'require("node:module").enableCompileCache?.();',
    ].join("\n"),
  };
}

/** CommonJS has no import.meta: one left would be undefined at run time, so the build fails instead. */
function noImportMeta(file) {
  if (readFileSync(file, "utf8").includes("import.meta")) throw new Error(`bundle: ${file} still uses import.meta`);
}

// Two passes. esbuild splits code into chunks only in ES-module output, and an
// ES-module entry costs a Node 20 CLI its ESM loader (about 16 more internal
// modules, fs/promises and readline among them, and an asynchronous read of
// each chunk): about 0.1-0.15× \`node -e 0\` of every command's start, measured.
// So the first pass splits into ES modules in a scratch directory, and the
// second turns each of them into CommonJS: dist/main.cjs (what "bin" runs)
// and dist/chunks/*.cjs, required when their import() runs. Each keeps a
// source map to the TypeScript (esbuild reads the first pass's maps).
const scratch = join(dist, ".esm");
// The copies of the SO_PEERCRED addon that earlier builds put next to the bundle: the addon is found where it was built now.
for (const old of [join(dist, "chunks"), scratch, join(dist, "peercred.node")]) rmSync(old, { recursive: true, force: true });
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
  plugins: [daemonApart, ownModuleUrl],
  metafile: true,
  logLevel: "warning",
});
const esmOutputs = Object.keys(metafile.outputs).filter((output) => output.endsWith(".js"));
for (const output of esmOutputs) noImportMeta(join(app, output));
// The CLI's identity, a hash of all its code: a memo the CLI keeps of what it validated is used only by the same build (src/config-memo.ts).
const buildId = createHash("sha256");
for (const output of esmOutputs.sort()) buildId.update(output).update(readFileSync(join(app, output)));
const define = { __VENOM_BUILD__: JSON.stringify(buildId.digest("hex").slice(0, 32)) };

// The second pass keeps every import external: a built-in is required (an ES
// import of one would build a facade of all its exports, reading every lazy
// getter: fs.ReadStream loads the streams); a chunk is required from its
// .cjs file.
const cjsImports = {
  name: "cjs-imports",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      if (args.path === DAEMON) {
        const from = join(dist, relative(scratch, dirname(args.importer)));
        return { path: `./${relative(from, join(dist, "daemon.cjs")).split(sep).join("/")}`, external: true };
      }
      return { path: args.path.replace(/^(\.\.?\/.*)\.js$/, "$1.cjs"), external: true };
    });
  },
};
// One build per output directory (dist/ and dist/chunks/), each with the banner that says where dist/ is from there.
const byDirectory = new Map();
for (const output of esmOutputs) {
  const up = relative(join(app, output, ".."), scratch) || ".";
  byDirectory.set(up, [...(byDirectory.get(up) ?? []), output]);
}
for (const [up, outputs] of byDirectory) {
  await build({
    entryPoints: outputs.map((output) => join(app, output)),
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
    define,
    plugins: [cjsImports],
    banner: banner(up),
    logLevel: "warning",
  });
}
rmSync(scratch, { recursive: true, force: true });

/** `entry` and everything it imports in one CommonJS file, dist/NAME.cjs. */
async function bundleAlone(entry, name) {
  const outfile = join(dist, `${name}.cjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    sourcemap: true,
    external: ["node-pty", "koffi"],
    plugins: [ownModuleUrl],
    banner: banner(relative(join(outfile, ".."), dist) || "."),
    logLevel: "warning",
  });
  noImportMeta(outfile);
}

// The daemon, in one file: no chunk of it is shared with the CLI's, so a client command loads none of its modules.
await bundleAlone(join(src, "app.ts"), "daemon");
// Each worker thread's entry, in one file of its own (see the top of this file).
for (const entry of workers) {
  const name = relative(src, entry).replace(/\.ts$/, "");
  await bundleAlone(entry, name);
  for (const unbundled of [`${name}.js`, `${name}.js.map`]) rmSync(join(dist, unbundled), { force: true });
}
chmodSync(join(dist, "main.cjs"), 0o755);
// dist/main.js (tsc's, unbundled) becomes the bundle's ES-module door, for whatever runs that path.
writeFileSync(
  join(dist, "main.js"),
  '#!/usr/bin/env node\n// The CLI is dist/main.cjs (scripts/bundle.mjs); this file loads it for callers of this path.\nimport "./main.cjs";\n',
  { mode: 0o755 },
);
rmSync(join(dist, "main.js.map"), { force: true });
