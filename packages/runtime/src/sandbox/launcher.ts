import { closeSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  execve,
  landlockAbi,
  landlockAllowPath,
  landlockCreateRuleset,
  landlockRestrictSelf,
  NativeError,
  setNoNewPrivs,
} from "@venom/native";
import { decodeRuleset, ENV_PREFIX, RULESET_VAR, type RulesetLayer } from "./ruleset-text.js";

// The Node sandbox launcher (docs/security-model.md, "Confinement (opt-in)"), used only where the C one
// (packages/native/launcher/venom-sandbox.c) was not built, and doing exactly
// what it does. Started by Venom in place of a program:
//   node launcher.js <program> <args…>
// with an environment of only VENOM_SANDBOX_RULESET (the planned rulesets, see
// ruleset-text.ts) and the program's variables each renamed
// VENOM_SANDBOX_ENV_<name>: names neither Node nor the dynamic loader reads,
// so nothing meant for the program (NODE_OPTIONS, LD_PRELOAD) runs here
// before the restriction, and the values stay out of the command line other
// users can read. It restricts itself with each layer under no_new_privs,
// then execve's the program with exactly its argv and env: the same pid,
// process group and session, and every descendant inherits the restriction.
// It never runs the program unconfined: any failure exits 126.

const CANNOT_CONFINE = 126;
const NOT_FOUND = 127;

function fail(code: number, message: string): never {
  writeSync(2, `venom-sandbox: ${message}\n`);
  process.exit(code);
}

function parse(): { layers: RulesetLayer[]; env: Record<string, string>; argv: string[] } {
  const argv = process.argv.slice(2);
  const ruleset = process.env[RULESET_VAR];
  if (argv.length === 0 || argv[0] === "" || ruleset === undefined) {
    fail(CANNOT_CONFINE, `usage: ${RULESET_VAR}=<ruleset> launcher.js <program> [args…]`);
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith(ENV_PREFIX) && value !== undefined) env[name.slice(ENV_PREFIX.length)] = value;
  }
  try {
    return { layers: decodeRuleset(ruleset), env, argv };
  } catch (error) {
    fail(CANNOT_CONFINE, (error as Error).message);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    fail(CANNOT_CONFINE, `cannot confine the process: open ${JSON.stringify(path)} failed: ${(error as NodeJS.ErrnoException).code}`);
  }
}

/** Each layer is one Landlock domain on top of the last: the process keeps only what every layer allows. */
function confine(layers: readonly RulesetLayer[]): void {
  const abi = landlockAbi();
  setNoNewPrivs();
  for (const layer of layers) {
    if (layer.abi > abi)
      fail(
        CANNOT_CONFINE,
        `cannot confine the process: the kernel's Landlock ABI ${abi} is older than the ABI ${layer.abi} the profile was planned for`,
      );
    const ruleset = landlockCreateRuleset(layer.handled);
    for (const rule of layer.rules) {
      const access = isDirectory(rule.path) ? rule.access : rule.access & layer.fileRights;
      landlockAllowPath(ruleset, rule.path, access);
    }
    landlockRestrictSelf(ruleset);
    closeSync(ruleset);
  }
}

/** execvp(3)'s search, run after the restriction: the program found is one the sandbox lets run. */
function exec(argv: string[], env: Record<string, string>): never {
  const file = argv[0] as string;
  const candidates = file.includes("/") ? [file] : (env.PATH ?? "/usr/bin:/bin").split(":").map((dir) => join(dir || ".", file));
  let denied: NativeError | undefined;
  for (const candidate of candidates) {
    try {
      execve(candidate, argv, env);
    } catch (error) {
      if (!(error instanceof NativeError)) throw error;
      if (error.code !== "ENOENT" && error.code !== "ENOTDIR") denied ??= error;
    }
  }
  if (denied) fail(CANNOT_CONFINE, `${JSON.stringify(file)}: ${denied.code}`);
  fail(NOT_FOUND, `${JSON.stringify(file)}: no such program`);
}

const { layers, env, argv } = parse();
try {
  confine(layers);
} catch (error) {
  fail(CANNOT_CONFINE, `cannot confine the process: ${error instanceof Error ? error.message : "unknown error"}`);
}
exec(argv, env);
