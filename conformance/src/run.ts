import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type Check, type Level, SOURCES } from "./check.js";
import { CheckContext, greet, type HelloResult, type RunState, type Target } from "./context.js";
import { Secrets, Transcript } from "./transcript.js";
import { CheckFailure, NotApplicable } from "./verdict.js";
import { WireClient } from "./wire-client.js";

export type Status = "pass" | "fail" | "warn" | "not-applicable";

export interface CheckResult {
  id: string;
  status: Status;
  level: Level;
  /** The quoted sentence the check enforces. */
  requirement: string;
  /** Where that sentence is: document and section. */
  source: string;
  expected: string;
  actual: string;
  /** What was said on the wire, redacted and bounded. */
  transcript: string[];
  ms: number;
}

export interface Report {
  server: string;
  socket: string;
  workspace: string;
  results: CheckResult[];
}

export interface RunOptions {
  checks: readonly Check[];
  raceRounds?: number;
}

const CHECK_TIMEOUT_MS = 120_000;

/** Run `checks` against a daemon, one after another; every check ends as a result, whatever happens. */
export async function runConformance(target: Target, options: RunOptions): Promise<Report> {
  const secrets = new Secrets(target.canary);
  const workspace = realpathSync(target.workspace);
  const outside = mkdtempSync(join(realpathSync(tmpdir()), "venom-conformance-outside-"));
  const scratch = mkdtempSync(join(workspace, ".venom-conformance-"));
  const report: Report = { server: "unknown", socket: target.socket, workspace, results: [] };
  try {
    const transcript = new Transcript(secrets);
    let hello: HelloResult;
    try {
      if (!relative(workspace, outside).startsWith("..")) throw new Error(`the workspace ${workspace} contains the temporary directory`);
      hello = await preflight(target, transcript, workspace);
    } catch (error) {
      const actual = `the run could not start: ${messageOf(error)}`;
      report.results = options.checks.map((check) => result(check, "fail", secrets.redact(actual), transcript.lines, 0));
      return report;
    }
    report.server = `${hello.server.name} ${hello.server.version}`;
    const state: RunState = { target, secrets, workspace, scratch, outside, hello, raceRounds: options.raceRounds ?? 2000 };
    for (const check of options.checks) report.results.push(await runCheck(check, state));
    return report;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

/** The owner's hello: it must succeed, and name the workspace we were told, before anything is judged. */
async function preflight(target: Target, transcript: Transcript, workspace: string): Promise<HelloResult> {
  const client = await WireClient.connect(target.socket, { label: "preflight", log: transcript });
  try {
    const hello = await greet(client);
    if (hello.workspace !== workspace) throw new Error(`the daemon's workspace is ${hello.workspace}, not ${workspace}`);
    return hello;
  } finally {
    client.close();
  }
}

/** Which of the tools a check needs the owner's hello offers; none means the check does not apply. */
function offered(check: Check, hello: HelloResult): boolean {
  if (check.needsMethods && !check.needsMethods.every((method) => hello.methods.includes(method))) return false;
  if (check.needs === undefined) return true;
  const names = hello.snapshot.tools.map((tool) => tool.name);
  return check.needs === "any" ? names.length > 0 : check.needs.some((name) => names.includes(name));
}

async function runCheck(check: Check, state: RunState): Promise<CheckResult> {
  if (!offered(check, state.hello)) {
    const wanted = check.needsMethods
      ? `method ${check.needsMethods.join(", ")}`
      : check.needs === "any"
        ? "tools"
        : `${check.needs?.join(" or ")} tool`;
    return result(check, "not-applicable", `the daemon's hello offers no ${wanted}`, [], 0);
  }
  const ctx = new CheckContext(state);
  const started = Date.now();
  let status: Status;
  let actual: string;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the check did not finish within ${CHECK_TIMEOUT_MS / 1000}s`)), CHECK_TIMEOUT_MS);
    });
    actual = await Promise.race([check.run(ctx), timeout]);
    status = ctx.findings.length > 0 ? "warn" : "pass";
    actual = [actual, ...ctx.findings].join("; ");
  } catch (error) {
    actual = messageOf(error);
    status =
      error instanceof NotApplicable ? "not-applicable" : error instanceof CheckFailure && check.level === "SHOULD" ? "warn" : "fail";
  } finally {
    clearTimeout(timer);
    ctx.dispose();
  }
  return result(check, status, state.secrets.redact(actual), ctx.transcript.lines, Date.now() - started);
}

function result(check: Check, status: Status, actual: string, transcript: string[], ms: number): CheckResult {
  const { source, section, text } = check.requirement;
  return {
    id: check.id,
    status,
    level: check.level,
    requirement: text,
    source: `${SOURCES[source].title}, "${section}"`,
    expected: check.expected,
    actual,
    transcript,
    ms,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
