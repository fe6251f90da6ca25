import { terminalSafe } from "@venom/proto";
import { type CheckResult, type Report, type Status, sectionOf } from "./run.js";
import { VERSION } from "./version.js";

type Counts = Record<Status, number>;

export interface Verdict {
  counts: Counts;
  /** The counts of each section of the suite (the part of a check id before the slash), in run order. */
  sections: Record<string, Counts>;
  /** Failed checks listed as known failures: reported, not counted against the run. */
  known: string[];
  /** Known failures that no longer fail: the list is out of date. */
  stale: string[];
  exitCode: number;
}

/** Exit codes: 0 every scored check passed; 1 a rule was broken; 2 usage; 3 the suite could not judge everything. */
export const EXIT = { pass: 0, fail: 1, usage: 2, error: 3 } as const;

const zero = (): Counts => ({ pass: 0, fail: 0, warn: 0, "not-applicable": 0, error: 0 });

/**
 * Exit 0 only when every scored check passed. Exit 1 for a failure (unless
 * listed as known), for a known-failure entry whose check ran and did not fail
 * (stale), and under --strict for a warning. Otherwise exit 3 when a check
 * ended in error or nothing was scored: the run says nothing either way.
 */
export function judge(results: readonly CheckResult[], options: { strict: boolean; knownFailures: readonly string[] }): Verdict {
  const counts = zero();
  const sections: Record<string, Counts> = {};
  for (const result of results) {
    counts[result.status]++;
    const section = sectionOf(result.id);
    sections[section] = sections[section] ?? zero();
    sections[section][result.status]++;
  }
  const failed = results.filter((result) => result.status === "fail").map((result) => result.id);
  const known = failed.filter((id) => options.knownFailures.includes(id));
  const stale = options.knownFailures.filter((id) =>
    results.some((result) => result.id === id && result.status !== "fail" && result.status !== "error"),
  );
  const scored = counts.pass + counts.fail + counts.warn;
  const broken = failed.length > known.length || stale.length > 0 || (options.strict && counts.warn > 0);
  const incomplete = counts.error > 0 || scored === 0;
  return { counts, sections, known, stale, exitCode: broken ? EXIT.fail : incomplete ? EXIT.error : EXIT.pass };
}

const LABEL: Record<Status, string> = { pass: "PASS", fail: "FAIL", warn: "WARN", "not-applicable": "N-A ", error: "ERR " };
const summary = (counts: Counts) =>
  `${counts.pass} passed, ${counts.fail} failed, ${counts.warn} warned, ${counts["not-applicable"]} not-applicable, ${counts.error} errors`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
/** What a reader of a failure needs: the rule, then what was seen and said. */
const EVIDENCE_LINES = 12;

export function consoleReport(report: Report, verdict: Verdict): string {
  const lines = [`venom-conformance ${VERSION}: ${report.server} on ${report.socket}`];
  let section = "";
  for (const result of report.results) {
    if (result.section !== section) {
      section = result.section;
      lines.push("", `${section}: ${summary(verdict.sections[section] ?? zero())}`);
    }
    const known = verdict.known.includes(result.id) ? " (known failure)" : "";
    lines.push(
      `${LABEL[result.status]} ${result.id}${known} (${seconds(result.ms)})${result.status === "pass" ? "" : `: ${result.actual}`}`,
    );
    if (result.status === "fail" || result.status === "error") {
      lines.push(`     rule: “${result.requirement}” (${result.source})`);
      const shown = [...result.evidence, ...result.transcript.slice(-EVIDENCE_LINES)];
      for (const line of shown) lines.push(`     | ${line}`);
    }
  }
  lines.push("");
  if (verdict.stale.length > 0) lines.push(`stale known failures (they no longer fail): ${verdict.stale.join(", ")}`);
  lines.push(summary(verdict.counts));
  // The daemon's name, its answers and its wire lines are its own words, and this goes to a terminal: escaped.
  return terminalSafe(lines.join("\n"));
}

export function jsonReport(report: Report, verdict: Verdict): string {
  return `${JSON.stringify({ tool: `venom-conformance ${VERSION}`, ...report, summary: verdict }, null, 2)}\n`;
}

const xml = (text: string) =>
  text
    .replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string)
    .replace(/[^\t\n\r\x20-\uFFFD]/gu, "?");

/** JUnit XML, one testsuite per section: fails are failures, errors are errors, not-applicable is skipped, a warning fails only under --strict. */
export function junitReport(report: Report, verdict: Verdict, strict: boolean): string {
  const failing = (result: CheckResult) => result.status === "fail" || (strict && result.status === "warn");
  const testcase = (result: CheckResult) => {
    const detail = xml(
      [
        `rule: ${result.id} (${result.level})`,
        `requirement: ${result.requirement} (${result.source})`,
        `expected: ${result.expected}`,
        `actual: ${result.actual}`,
        ...result.evidence.map((line) => `seen: ${line}`),
        ...result.transcript,
      ].join("\n"),
    );
    const body = failing(result)
      ? `<failure type="${result.level}" message="${xml(result.actual)}">${detail}</failure>`
      : result.status === "error"
        ? `<error type="error" message="${xml(result.actual)}">${detail}</error>`
        : result.status === "not-applicable"
          ? `<skipped message="${xml(result.actual)}"/>`
          : `<system-out>${result.status === "warn" ? "WARN " : ""}${detail}</system-out>`;
    return `      <testcase classname="${xml(result.section)}" name="${xml(result.id)}" time="${(result.ms / 1000).toFixed(3)}">${body}</testcase>`;
  };
  const attrs = (results: readonly CheckResult[], name: string) => {
    const skipped = results.filter((result) => result.status === "not-applicable").length;
    const errors = results.filter((result) => result.status === "error").length;
    const time = results.reduce((sum, result) => sum + result.ms, 0) / 1000;
    return `name="${xml(name)}" tests="${results.length}" failures="${results.filter(failing).length}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}"`;
  };
  const suites = Object.keys(verdict.sections).flatMap((section) => {
    const results = report.results.filter((result) => result.section === section);
    return [`  <testsuite ${attrs(results, section)}>`, ...results.map(testcase), "  </testsuite>"];
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attrs(report.results, "venom-conformance")}>`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
