import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type Check, type Level, SOURCES } from "./check.js";
import { CheckContext, greet, type HelloResult, type RunState, type Target } from "./context.js";
import { Secrets, Transcript } from "./transcript.js";
import { CheckFailure, NotApplicable } from "./verdict.js";
import { WireClient } from "./wire-client.js";

/**
 * pass; fail: the daemon broke a MUST; warn: a SHOULD; not-applicable: hello
 * says the feature is absent; error: the suite could not judge (the check threw
 * something other than a finding, left a promise to reject unhandled, or never
 * finished), so the run is incomplete.
 */
export type Status = "pass" | "fail" | "warn" | "not-applicable" | "error";

export interface CheckResult {
  id: string;
  status: Status;
  level: Level;
  /** The quoted sentence the check enforces. */
  requirement: string;
  /** The section of the suite (the id's prefix): reports are summed by it. */
  section: string;
  /** Where that sentence is: document and section. */
  source: string;
  expected: string;
  actual: string;
  /** What was said on the wire, redacted and bounded. */
  transcript: string[];
  /** Files and processes the check looked at, redacted: what it saw, for a reader of a failure. */
  evidence: string[];
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
  /** How long one check may take before it is an error; 120 s by default. */
  checkTimeoutMs?: number;
}

const CHECK_TIMEOUT_MS = 120_000;

/** A report in which every check is an error: the run could not start, and says why. */
export function failedRun(
  target: Pick<Target, "socket" | "workspace">,
  checks: readonly Check[],
  why: string,
  lines: string[] = [],
): Report {
  const actual = `the run could not start: ${why}`;
  return {
    server: "unknown",
    socket: target.socket,
    workspace: target.workspace,
    results: checks.map((check) => result(check, "error", actual, lines, [], 0)),
  };
}

/** Run `checks` against a daemon, one after another; every check ends as a result, whatever happens, and this never rejects. */
export async function runConformance(target: Target, options: RunOptions): Promise<Report> {
  const secrets = new Secrets(target.canary);
  const transcript = new Transcript(secrets);
  const made: string[] = [];
  const stray = new StrayRejections();
  try {
    const workspace = realpathSync(target.workspace);
    const outside = mkdtempSync(join(realpathSync(tmpdir()), "venom-conformance-outside-"));
    made.push(outside);
    if (!relative(workspace, outside).startsWith("..")) throw new Error(`the workspace ${workspace} contains the temporary directory`);
    const scratch = mkdtempSync(join(workspace, ".venom-conformance-"));
    made.push(scratch);
    const hello = await preflight(target, transcript, workspace);
    const report: Report = { server: `${hello.server.name} ${hello.server.version}`, socket: target.socket, workspace, results: [] };
    const state: RunState = { target, secrets, workspace, scratch, outside, hello, raceRounds: options.raceRounds ?? 2000 };
    for (const check of options.checks) {
      report.results.push(await runCheck(check, state, stray, options.checkTimeoutMs ?? CHECK_TIMEOUT_MS));
    }
    return report;
  } catch (error) {
    return failedRun(target, options.checks, secrets.redact(messageOf(error)), transcript.lines);
  } finally {
    stray.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A promise a check started and did not await may reject at any time, and a
 * listener it added may throw: without a listener Node would end the process
 * and no report would be written. While a run goes on, either is the running
 * check's error; one that comes after its check ended (its connections closed)
 * is noted in that check's result.
 */
class StrayRejections {
  #current: ((error: unknown) => void) | undefined;
  #late: string[] | undefined;
  readonly #listener = (error: unknown) => {
    if (this.#current) this.#current(error);
    else this.#late?.push(`# after the check ended, something it started failed: ${messageOf(error)}`);
  };

  constructor() {
    process.on("unhandledRejection", this.#listener);
    process.on("uncaughtException", this.#listener);
  }

  /** `run`, rejecting when a stray rejection happens while it runs. */
  during<T>(run: () => Promise<T>): Promise<T> {
    this.#late = undefined;
    const stray = new Promise<never>((_, reject) => {
      this.#current = (error) => reject(new StrayRejection(messageOf(error)));
    });
    return Promise.race([run(), stray]).finally(() => {
      this.#current = undefined;
    });
  }

  /**
   * After a check: its closed connections fail what still waited on them on a
   * later turn of the event loop. Let that happen now, noted in `lines`, so it
   * is never taken for the next check's error.
   */
  async settle(lines: string[]): Promise<void> {
    this.#late = lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  close(): void {
    process.off("unhandledRejection", this.#listener);
    process.off("uncaughtException", this.#listener);
  }
}

class StrayRejection extends Error {
  override readonly name = "StrayRejection";
  constructor(message: string) {
    super(`something the check did not await failed: ${message}`);
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

/** Why a check does not apply to a daemon with this hello, or undefined when it does. */
export function notApplicable(check: Check, hello: HelloResult): string | undefined {
  if (offered(check, hello)) return undefined;
  const wanted = check.needsMethods
    ? `method ${check.needsMethods.join(", ")}`
    : check.needs === "any"
      ? "tools"
      : `${check.needs?.join(" or ")} tool`;
  return `the daemon's hello offers no ${wanted}`;
}

async function runCheck(check: Check, state: RunState, stray: StrayRejections, timeoutMs: number): Promise<CheckResult> {
  const absent = notApplicable(check, state.hello);
  if (absent) return result(check, "not-applicable", absent, [], [], 0);
  const ctx = new CheckContext(state);
  const started = Date.now();
  let status: Status;
  let actual: string;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the check did not finish within ${timeoutMs / 1000}s`)), timeoutMs);
    });
    actual = await stray.during(() => Promise.race([check.run(ctx), timeout]));
    status = ctx.findings.length > 0 ? "warn" : "pass";
    actual = [actual, ...ctx.findings].join("; ");
  } catch (error) {
    actual = messageOf(error);
    status =
      error instanceof NotApplicable
        ? "not-applicable"
        : error instanceof CheckFailure
          ? check.level === "SHOULD"
            ? "warn"
            : "fail"
          : "error";
  } finally {
    clearTimeout(timer);
    ctx.dispose();
  }
  const redact = (lines: string[]) => lines.map((line) => state.secrets.redact(line));
  const ms = Date.now() - started;
  const late: string[] = [];
  await stray.settle(late);
  return result(check, status, state.secrets.redact(actual), [...ctx.transcript.lines, ...redact(late)], redact(ctx.evidence), ms);
}

function result(check: Check, status: Status, actual: string, transcript: string[], evidence: string[], ms: number): CheckResult {
  const { source, section, text } = check.requirement;
  return {
    id: check.id,
    section: sectionOf(check.id),
    status,
    level: check.level,
    requirement: text,
    source: `${SOURCES[source].title}, "${section}"`,
    expected: check.expected,
    actual,
    transcript,
    evidence,
    ms,
  };
}

/** A check's section: the part of its id before the slash. */
export const sectionOf = (id: string) => id.split("/")[0] as string;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
