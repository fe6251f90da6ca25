#!/usr/bin/env node
// The packages' dependency rule (ARCHITECTURE.md, "Layers"): each workspace
// package's sources import only the Venom packages of the layers below it. An
// app never imports another app's code (venom-orch only resolves venom-mux's
// program to start it), and the conformance suite knows the protocol alone, so
// it judges our daemons as it judges anyone's.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;

const LOW = ["@venom/proto", "@venom/native"];
const RUNTIME = [...LOW, "@venom/runtime"];
const APP = [...RUNTIME, "@venom/agents"];

/** The folders whose `src/` is checked, and the Venom packages each may import. */
const ALLOWED = {
  "packages/proto": [],
  "packages/native": [],
  "packages/runtime": LOW,
  "packages/agents": RUNTIME,
  "apps/venom-echo": APP,
  "apps/multiplexer-lite": APP,
  "apps/orchestrator-lite": APP,
  "examples/greeter": APP,
  conformance: ["@venom/proto"],
  testkit: RUNTIME,
};

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](@venom\/[a-z-]+)/g;

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

const workspaces = [
  ...["packages", "apps", "examples"].flatMap((group) => readdirSync(join(root, group)).map((name) => `${group}/${name}`)),
  "conformance",
  "testkit",
];
const problems = [];
for (const folder of workspaces) {
  const allowed = ALLOWED[folder];
  if (!allowed) {
    problems.push(`${folder}: not placed in a layer (scripts/check-layers.mjs, ALLOWED)`);
    continue;
  }
  const own = JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8")).name;
  // testkit keeps its modules at its top level; every other package under src/.
  const dir = folder === "testkit" ? join(root, folder) : join(root, folder, "src");
  for (const file of sources(dir)) {
    for (const [, pkg] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (pkg !== own && !allowed.includes(pkg)) problems.push(`${relative(root, file)} imports ${pkg}, not a layer below ${own}`);
    }
  }
}
if (problems.length > 0) {
  console.error(`layers: ${problems.length} import(s) break the dependency rule (ARCHITECTURE.md, "Layers"):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`layers: ${workspaces.length} packages keep the dependency rule`);
