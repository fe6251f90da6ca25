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
import { ENV_PREFIX, fileRights, PROFILE_VAR, planRuleset, type SandboxProfile } from "./plan.js";

// The sandbox launcher (issue 13), started by Venom in place of a program:
//   node launcher.js <program> <args…>
// with an environment of only VENOM_SANDBOX_PROFILE (the profile as JSON) and
// the program's variables each renamed VENOM_SANDBOX_ENV_<name>: names neither
// Node nor the dynamic loader reads, so nothing meant for the program
// (NODE_OPTIONS, LD_PRELOAD) runs here before the restriction, and the values
// stay out of the command line other users can read. It plans the profile
// against this kernel, restricts itself with Landlock under no_new_privs, then
// execve's the program with exactly its argv and env: the same pid, process
// group and session, and every descendant inherits the restriction. It never
// runs the program unconfined: any failure exits 126.

const CANNOT_CONFINE = 126;
const NOT_FOUND = 127;

function fail(code: number, message: string): never {
  writeSync(2, `venom-sandbox: ${message}\n`);
  process.exit(code);
}

function parse(): { profile: SandboxProfile; env: Record<string, string>; argv: string[] } {
  const argv = process.argv.slice(2);
  const profile = process.env[PROFILE_VAR];
  if (argv.length === 0 || profile === undefined) fail(CANNOT_CONFINE, `usage: ${PROFILE_VAR}=<profile> launcher.js <program> [args…]`);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith(ENV_PREFIX) && value !== undefined) env[name.slice(ENV_PREFIX.length)] = value;
  }
  return { profile: JSON.parse(profile) as SandboxProfile, env, argv };
}

function confine(profile: SandboxProfile): void {
  const plan = planRuleset(profile, landlockAbi());
  if ("refused" in plan) fail(CANNOT_CONFINE, `cannot confine the process: ${plan.refused}`);
  const ruleset = landlockCreateRuleset(plan.handled);
  for (const rule of plan.rules) {
    const access = statSync(rule.path).isDirectory() ? rule.access : rule.access & fileRights(plan.abi);
    landlockAllowPath(ruleset, rule.path, access);
  }
  setNoNewPrivs();
  landlockRestrictSelf(ruleset);
  closeSync(ruleset);
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

const { profile, env, argv } = parse();
try {
  confine(profile);
} catch (error) {
  fail(CANNOT_CONFINE, `cannot confine the process: ${error instanceof Error ? error.message : "unknown error"}`);
}
exec(argv, env);
