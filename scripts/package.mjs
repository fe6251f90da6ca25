#!/usr/bin/env node
// `pnpm package` (after `pnpm build`): release/venom-VERSION.tgz, what a user installs with
// `npm install -g ./venom-VERSION.tgz` (README, "Install"). The tarball keeps the repository's layout for what runs,
// because the built CLIs find their daemon bundles, native programs and agents by where they sit (scripts/bundle.mjs,
// "own import.meta.url"): apps/*/dist, the demo agents, packages/native's C sources (compiled at install, by
// packages/native/install.mjs, for the machine they land on), and three files bundled here whole, since a user's
// install has no workspace packages to import: venom-conformance, the demo and the Node sandbox launcher.
// node-pty and koffi, native and external to every bundle, are the package's two dependencies.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const release = join(root, "release");
const stage = join(release, "venom");
const json = (path) => JSON.parse(readFileSync(join(root, path), "utf8"));

const mux = json("apps/multiplexer-lite/package.json");
const version = mux.version;
const EXTERNAL = ["node-pty", "koffi"];

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const copy = (path) => cpSync(join(root, path), join(stage, path), { recursive: true, filter: (from) => !from.endsWith(".d.ts") });
for (const app of ["venom-echo", "multiplexer-lite", "orchestrator-lite"]) {
  copy(`apps/${app}/dist`);
  // The workspace's package.json says "type": "module", which the .js files tsc left beside the bundles need.
  writeFileSync(join(stage, "apps", app, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
}
copy("apps/orchestrator-lite/agents");
for (const part of ["build-c.mjs", "install.mjs", "launcher", "pty-exec", "addon", "include"]) copy(`packages/native/${part}`);
copy("conformance/probe");

/** `entry` and every workspace module it imports in one ES module at `out` (it keeps its own import.meta.url). */
const bundle = (entry, out, hashbang = "") =>
  build({
    entryPoints: [join(root, entry)],
    outfile: join(stage, out),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    banner: {
      js: `${hashbang}import { createRequire as __venomRequire } from "node:module"; const require = __venomRequire(import.meta.url);`,
    },
    logLevel: "warning",
  });
await bundle("conformance/src/main.ts", "conformance/dist/main.mjs");
await bundle("scripts/demo.mjs", "scripts/demo.mjs", "#!/usr/bin/env node\n");
await bundle("packages/runtime/src/sandbox/launcher.ts", "packages/runtime/dist/sandbox/launcher.js");
writeFileSync(join(stage, "packages", "runtime", "package.json"), `${JSON.stringify({ type: "module" })}\n`);

const manifest = {
  name: "venom",
  version,
  description: "Venom: venom-echo, venom-mux and venom-orch, for people who run AI coding agents on their own machine",
  type: "module",
  bin: {
    "venom-echo": "apps/venom-echo/dist/main.cjs",
    "venom-mux": "apps/multiplexer-lite/dist/main.cjs",
    "venom-orch": "apps/orchestrator-lite/dist/main.cjs",
    "venom-conformance": "conformance/dist/main.mjs",
    "venom-demo": "scripts/demo.mjs",
  },
  engines: json("package.json").engines,
  os: ["linux"],
  scripts: { install: "node packages/native/install.mjs" },
  dependencies: Object.fromEntries(EXTERNAL.map((name) => [name, mux.dependencies[name]])),
};
writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
cpSync(join(root, "README.md"), join(stage, "README.md"));
const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", release], { cwd: stage, encoding: "utf8" }).trim();
console.log(join(release, tarball.split("\n").at(-1)));
