#!/usr/bin/env node
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Target } from "./context.js";
import { CHECKS, selectChecks } from "./registry.js";
import { consoleReport, jsonReport, judge, junitReport } from "./report.js";
import { runConformance } from "./run.js";
import { type StartedTarget, startTarget, UsageError } from "./target.js";

const HELP = `venom-conformance: the rules of Venom's source documents as checks against a running venom/1 daemon

Usage:
  venom-conformance --socket PATH --workspace DIR [--home DIR] [--stdio-command CMD] [--canary VALUE] [options]
  venom-conformance --target echo|mux|orch [options] start our venom-echo, venom-mux or venom-orch in a temporary home, check it, stop it
  venom-conformance --list                      every check: id, level, requirement

Options:
  --home DIR            the daemon's VENOM_HOME (default: the directory above the socket's state/)
  --stdio-command CMD   how to start the daemon's stdio endpoint (run with /bin/sh -c)
  --canary VALUE        a secret you placed in the daemon's environment; without it secrets/canary warns
  --only PREFIX         run only checks whose id starts with PREFIX (repeatable)
  --json FILE           write every result (requirement, expected, actual, redacted transcript) as JSON
  --junit FILE          write JUnit XML
  --strict              a warning (SHOULD) fails the run
  --known-failures FILE check ids (one per line, # comments) expected to fail; one that passes fails the run
  --race-rounds N       reads in the symlink race (default 2000)

Verdicts: PASS, FAIL (a MUST), WARN (a SHOULD), N-A (the daemon's hello says the feature is absent).
Anything else that cannot be exercised is a FAIL. Exit codes: 0 every scored check passed, 1 otherwise
(or nothing ran), 2 usage. identity/foreign-uid needs root: it runs a client as nobody and briefly opens
the socket's modes to everyone (restored after).`;

const options = {
  socket: { type: "string" },
  workspace: { type: "string" },
  home: { type: "string" },
  "stdio-command": { type: "string" },
  canary: { type: "string" },
  target: { type: "string" },
  only: { type: "string", multiple: true },
  json: { type: "string" },
  junit: { type: "string" },
  strict: { type: "boolean" },
  "known-failures": { type: "string" },
  "race-rounds": { type: "string" },
  list: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>["values"];

/** A daemon someone else runs, described by flags. */
function givenTarget(values: Values): Target {
  const { socket, workspace } = values;
  if (!socket || !workspace) throw new UsageError("give --socket and --workspace, or --target echo");
  const path = resolve(socket);
  const home = values.home ?? (basename(dirname(path)) === "state" ? dirname(dirname(path)) : undefined);
  const command = values["stdio-command"];
  return {
    socket: path,
    workspace: resolve(workspace),
    ...(home ? { home: resolve(home) } : {}),
    ...(command ? { stdio: { command: "/bin/sh", args: ["-c", command] } } : {}),
    ...(values.canary ? { canary: values.canary } : {}),
  };
}

function knownFailures(file: string | undefined): string[] {
  if (!file) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options, allowPositionals: false });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.list) {
    for (const check of CHECKS) console.log(`${check.id}\t${check.level}\t${check.requirement.text}`);
    return 0;
  }
  const rounds = Number(values["race-rounds"] ?? 2000);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError("--race-rounds must be a positive integer");
  const checks = selectChecks(values.only ?? []);
  if (checks.length === 0) throw new UsageError(`no check id starts with ${values.only?.join(" or ")}; see --list`);
  const known = knownFailures(values["known-failures"]);
  const started: StartedTarget | undefined = values.target ? await startTarget(values.target) : undefined;
  try {
    const report = await runConformance(started ?? givenTarget(values), { checks, raceRounds: rounds });
    const verdict = judge(report.results, { strict: values.strict === true, knownFailures: known });
    console.log(consoleReport(report, verdict));
    if (values.json) writeFileSync(values.json, jsonReport(report, verdict));
    if (values.junit) writeFileSync(values.junit, junitReport(report, verdict, values.strict === true));
    return verdict.exitCode;
  } finally {
    await started?.stop();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  console.error(`venom-conformance: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = usage ? 2 : 1;
}
