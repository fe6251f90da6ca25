#!/usr/bin/env node
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Check } from "./check.js";
import { greet, type Target } from "./context.js";
import { selectChecks } from "./registry.js";
import { consoleReport, EXIT, jsonReport, judge, junitReport } from "./report.js";
import { failedRun, notApplicable, type Report, runConformance } from "./run.js";
import { type StartedTarget, startTarget, UsageError } from "./target.js";
import { Secrets, Transcript } from "./transcript.js";
import { WireClient } from "./wire-client.js";

const HELP = `venom-conformance: the rules of Venom's source documents as checks against a running venom/1 daemon

Usage:
  venom-conformance --socket PATH --workspace DIR [--home DIR] [--stdio-command CMD] [--serve-command CMD] [--canary VALUE] [options]
  venom-conformance --target echo|mux|orch [--confined] [options]
                                                start our venom-echo, venom-mux or venom-orch in a temporary home, check it, stop it;
                                                --confined: with [sandbox] mode = "landlock", network = "none" (the confinement/ checks)
  venom-conformance --list [--target NAME | --socket PATH --workspace DIR]
                                                every check: id, level, requirement; with a daemon, whether it runs there

Options:
  --home DIR            the daemon's VENOM_HOME (default: the directory above the socket's state/)
  --stdio-command CMD   how to start the daemon's stdio endpoint (run with /bin/sh -c)
  --serve-command CMD   how to start another instance in the foreground on the VENOM_HOME in its environment
                        (run with /bin/sh -c); without it instance/hostile-home is N-A
  --canary VALUE        a secret you placed in the daemon's environment; without it secrets/canary warns
  --only PREFIX         run only checks whose id starts with PREFIX (repeatable)
  --json FILE           write every result (requirement, expected, actual, redacted transcript) as JSON
  --junit FILE          write JUnit XML
  --strict              a warning (SHOULD) fails the run
  --known-failures FILE check ids (one per line, # comments) expected to fail; one that passes fails the run
  --race-rounds N       reads in the symlink race (default 2000)

Verdicts: PASS, FAIL (a MUST broken), WARN (a SHOULD), N-A (the daemon's hello says the feature is absent),
ERR (the suite could not judge: the check threw, left a promise failing unawaited, or did not finish).
The JSON and JUnit reports are written whatever happens. Exit codes: 0 every scored check passed; 1 a check
failed (or a known failure passed, or a warning under --strict); 2 usage; 3 no failure, but a check ended
in error or nothing was scored. identity/foreign-uid needs root: it runs a client as nobody and briefly
opens the socket's modes to everyone (restored after).`;

const options = {
  socket: { type: "string" },
  workspace: { type: "string" },
  home: { type: "string" },
  "stdio-command": { type: "string" },
  "serve-command": { type: "string" },
  canary: { type: "string" },
  target: { type: "string" },
  confined: { type: "boolean" },
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
  const serve = values["serve-command"];
  return {
    socket: path,
    workspace: resolve(workspace),
    ...(home ? { home: resolve(home) } : {}),
    ...(command ? { stdio: { command: "/bin/sh", args: ["-c", command] } } : {}),
    ...(serve ? { serve: { command: "/bin/sh", args: ["-c", serve] } } : {}),
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Every check, tab-separated; with a daemon, whether it runs there and, if not, why. */
async function list(checks: readonly Check[], target: Target | undefined): Promise<string[]> {
  if (!target) return checks.map((check) => `${check.id}\t${check.level}\t${check.requirement.text}`);
  const client = await WireClient.connect(target.socket, { label: "list", log: new Transcript(new Secrets(undefined)) });
  try {
    const hello = await greet(client);
    return checks.map((check) => {
      const absent = notApplicable(check, hello);
      return `${check.id}\t${check.level}\t${absent ? `not-applicable: ${absent}` : "runs"}\t${check.requirement.text}`;
    });
  } finally {
    client.close();
  }
}

/** Run the checks, whatever happens: a daemon that cannot be started or reached is a report of errors, not a crash. */
async function run(values: Values, checks: readonly Check[], rounds: number): Promise<Report> {
  const described = { socket: values.socket ?? `(--target ${values.target})`, workspace: values.workspace ?? "" };
  let started: StartedTarget | undefined;
  try {
    started = values.target ? await startTarget(values.target, { confined: values.confined === true }) : undefined;
    return await runConformance(started ?? givenTarget(values), { checks, raceRounds: rounds });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return failedRun(described, checks, messageOf(error));
  } finally {
    await started?.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options, allowPositionals: false });
  if (values.help) {
    console.log(HELP);
    return EXIT.pass;
  }
  if (values.confined && !values.target) throw new UsageError("--confined applies to a daemon the suite starts: give --target too");
  const checks = selectChecks(values.only ?? []);
  if (checks.length === 0) throw new UsageError(`no check id starts with ${values.only?.join(" or ")}; see --list`);
  if (values.list) {
    const started = values.target ? await startTarget(values.target, { confined: values.confined === true }) : undefined;
    try {
      const target = started ?? (values.socket ? givenTarget(values) : undefined);
      for (const line of await list(checks, target)) console.log(line);
    } finally {
      await started?.stop();
    }
    return EXIT.pass;
  }
  const rounds = Number(values["race-rounds"] ?? 2000);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError("--race-rounds must be a positive integer");
  if (!values.target && !(values.socket && values.workspace)) throw new UsageError("give --socket and --workspace, or --target echo");
  const known = knownFailures(values["known-failures"]);
  const report = await run(values, checks, rounds);
  const verdict = judge(report.results, { strict: values.strict === true, knownFailures: known });
  // The files first: whatever a terminal does with the console report, CI gets its JSON and JUnit.
  if (values.json) writeFileSync(values.json, jsonReport(report, verdict));
  if (values.junit) writeFileSync(values.junit, junitReport(report, verdict, values.strict === true));
  console.log(consoleReport(report, verdict));
  return verdict.exitCode;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  console.error(`venom-conformance: ${messageOf(error)}`);
  process.exitCode = usage ? EXIT.usage : EXIT.error;
}
