import { expect, it } from "vitest";
import { consoleReport, judge } from "../src/report.js";
import type { CheckResult } from "../src/run.js";

/**
 * The daemon under test is not trusted: its name, its errors and what it said
 * on the wire go into the console report, which is printed on a terminal.
 */
const HOSTILE = "\u001b]0;owned\u0007\u001b[2J\u202etxt.exe";

it("escapes what the daemon under test said before the console report reaches a terminal", () => {
  const result: CheckResult = {
    id: "handshake/example",
    status: "fail",
    level: "MUST",
    requirement: "a rule",
    section: "handshake",
    source: "a document",
    expected: "something",
    actual: `the daemon answered ${HOSTILE}`,
    transcript: [`< ${HOSTILE}`],
    evidence: [`a file named ${HOSTILE}`],
    ms: 1,
  };
  const report = { server: `evil ${HOSTILE}`, socket: "/tmp/s.sock", workspace: "/tmp/w", results: [result] };
  const text = consoleReport(report, judge([result], { strict: false, knownFailures: [] }));
  for (const unsafe of ["\u001b", "\u0007", "\u202e"]) expect(text.includes(unsafe)).toBe(false);
  // Still readable, as visible escapes, on every line that carried it.
  expect(text.split("\n").filter((line) => line.includes("\\u001b]0;owned\\u0007"))).toHaveLength(4);
});
