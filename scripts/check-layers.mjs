#!/usr/bin/env node
// The packages' dependency rule (ARCHITECTURE.md, "Layers"): each workspace
// package's sources import only the Venom packages of the layers below it. An
// app never imports another app's code (venom-orch only resolves venom-mux's
// program to start it), and the conformance suite knows the protocol alone, so
// it judges our daemons as it judges anyone's.
//
// And no package's own modules import each other in a circle: a cycle makes
// load order decide what is defined, and two folders that need each other are
// one concept cut in two. Static imports count (`import type` too: it ties the
// two files' meaning); an `import()` loads later, on purpose, and does not.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;

const LOW = ["@venom/proto", "@venom/native"];
const RUNTIME = [...LOW, "@venom/runtime"];
const APP = [...RUNTIME, "@venom/agents", "@venom/client"];

/** The folders whose `src/` is checked, and the Venom packages each may import. */
const ALLOWED = {
  "packages/proto": [],
  "packages/native": [],
  "packages/runtime": LOW,
  "packages/agents": RUNTIME,
  "packages/client": RUNTIME,
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
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:[^;]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+)["']/g;

/** The package's own file a relative import names: `./x.js` is `./x.ts` in the sources. */
function ownFile(from, spec) {
  const path = resolve(dirname(from), spec);
  for (const candidate of [path.replace(/\.js$/, ".ts"), path.replace(/\.mjs$/, ".mts"), path]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every import cycle among `files` (one per strongly connected set, as a path that closes on itself). */
function cycles(files) {
  const edges = new Map(files.map((file) => [file, []]));
  for (const file of files) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const target = ownFile(file, spec);
      if (target && edges.has(target)) edges.get(file).push(target);
    }
  }
  // Tarjan's strongly connected components; a component of two or more files (or one importing itself) is a cycle.
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    for (const to of edges.get(file)) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file), low.get(to)));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file), index.get(to)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || edges.get(file).includes(file)) found.push(closedPath(component, edges));
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

/** One path through a strongly connected set that returns to its start: the cycle to name. */
function closedPath(component, edges) {
  const members = new Set(component);
  const start = component.toSorted()[0];
  const path = [start];
  const seen = new Set([start]);
  for (let at = start; ; ) {
    const to = edges.get(at).find((t) => t === start && path.length > 1) ?? edges.get(at).find((t) => members.has(t) && !seen.has(t));
    if (to === undefined || to === start) break;
    path.push(to);
    seen.add(to);
    at = to;
  }
  return [...path, start];
}

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
  for (const cycle of cycles([...sources(dir)])) {
    problems.push(`${folder}: import cycle ${cycle.map((file) => relative(dir, file)).join(" → ")}`);
  }
}
if (problems.length > 0) {
  console.error(
    `layers: ${problems.length} import(s) break the dependency rule or close a cycle (ARCHITECTURE.md, "Layers"):\n${problems.join("\n")}`,
  );
  process.exit(1);
}
console.log(`layers: ${workspaces.length} packages keep the dependency rule, with no import cycle`);
