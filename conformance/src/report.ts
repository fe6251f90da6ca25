import type { CheckResult, Report, Status } from "./run.js";
import { VERSION } from "./version.js";

export interface Verdict {
  counts: Record<Status, number>;
  /** Failed checks listed as known failures: reported, not counted against the run. */
  known: string[];
  /** Known failures that no longer fail: the list is out of date. */
  stale: string[];
  exitCode: number;
}

/**
 * Exit 0 only when every scored check passed: non-zero for a failure (unless
 * listed as known), for a known-failure entry whose check ran and did not fail
 * (stale), for a run where nothing was scored, and under --strict for a warning.
 */
export function judge(results: readonly CheckResult[], options: { strict: boolean; knownFailures: readonly string[] }): Verdict {
  const counts: Record<Status, number> = { pass: 0, fail: 0, warn: 0, "not-applicable": 0 };
  for (const result of results) counts[result.status]++;
  const failed = results.filter((result) => result.status === "fail").map((result) => result.id);
  const known = failed.filter((id) => options.knownFailures.includes(id));
  const stale = options.knownFailures.filter((id) => results.some((result) => result.id === id) && !failed.includes(id));
  const scored = counts.pass + counts.fail + counts.warn;
  const bad = failed.length > known.length || stale.length > 0 || scored === 0 || (options.strict && counts.warn > 0);
  return { counts, known, stale, exitCode: bad ? 1 : 0 };
}

const LABEL: Record<Status, string> = { pass: "PASS", fail: "FAIL", warn: "WARN", "not-applicable": "N-A " };

export function consoleReport(report: Report, verdict: Verdict): string {
  const lines = [`venom-conformance ${VERSION}: ${report.server} on ${report.socket}`];
  for (const result of report.results) {
    const known = verdict.known.includes(result.id) ? " (known failure)" : "";
    lines.push(`${LABEL[result.status]} ${result.id}${known}${result.status === "pass" ? "" : `: ${result.actual}`}`);
  }
  if (verdict.stale.length > 0) lines.push(`stale known failures (they no longer fail): ${verdict.stale.join(", ")}`);
  const { pass, fail, warn } = verdict.counts;
  lines.push(`${pass} passed, ${fail} failed, ${warn} warned, ${verdict.counts["not-applicable"]} not-applicable`);
  return lines.join("\n");
}

export function jsonReport(report: Report, verdict: Verdict): string {
  return `${JSON.stringify({ tool: `venom-conformance ${VERSION}`, ...report, summary: verdict }, null, 2)}\n`;
}

const xml = (text: string) =>
  text
    .replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string)
    .replace(/[^\t\n\r\x20-\uFFFD]/gu, "?");

/** JUnit XML: fails are failures, not-applicable is skipped, a warning is a failure only under --strict. */
export function junitReport(report: Report, verdict: Verdict, strict: boolean): string {
  const failing = (result: CheckResult) => result.status === "fail" || (strict && result.status === "warn");
  const cases = report.results.map((result) => {
    const detail = xml(
      [
        `requirement: ${result.requirement} (${result.source})`,
        `expected: ${result.expected}`,
        `actual: ${result.actual}`,
        ...result.transcript,
      ].join("\n"),
    );
    const body = failing(result)
      ? `<failure type="${result.level}" message="${xml(result.actual)}">${detail}</failure>`
      : result.status === "not-applicable"
        ? `<skipped message="${xml(result.actual)}"/>`
        : `<system-out>${result.status === "warn" ? "WARN " : ""}${detail}</system-out>`;
    const group = result.id.split("/")[0];
    return `    <testcase classname="${group}" name="${xml(result.id)}" time="${(result.ms / 1000).toFixed(3)}">${body}</testcase>`;
  });
  const failures = report.results.filter(failing).length;
  const attrs = `name="venom-conformance" tests="${report.results.length}" failures="${failures}" skipped="${verdict.counts["not-applicable"]}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attrs}>`,
    `  <testsuite ${attrs}>`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
