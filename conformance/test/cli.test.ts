import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHECKS } from "../src/registry.js";
import { judge } from "../src/report.js";
import type { CheckResult, Status } from "../src/run.js";
import { startBrokenDaemon } from "./fixtures/broken-daemon.js";

const MAIN = join(import.meta.dirname, "../dist/main.js");
const scratch = mkdtempSync(join(tmpdir(), "conformance-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Run the built binary without blocking this process: the fixture daemon it talks to lives here. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const results = (...statuses: [string, Status][]) => statuses.map(([id, status]) => ({ id, status }) as CheckResult);

describe("venom-conformance", () => {
  it("passes venom-echo: every applicable check, exit 0, with JSON and JUnit reports", async () => {
    const json = join(scratch, "echo.json");
    const junit = join(scratch, "echo.xml");
    const run = await cli("--target", "echo", "--json", json, "--junit", junit);
    expect(run.stdout.split("\n").filter((line) => /^(FAIL|WARN)/.test(line))).toEqual([]);
    expect(run.stdout).toMatch(/^\d+ passed, 0 failed, 0 warned, \d+ not-applicable, 0 errors$/m);
    expect(run.code, run.stdout).toBe(0);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.results.map((r: CheckResult) => r.id)).toEqual(CHECKS.map((check) => check.id));
    expect(Object.keys(report.results[0]).sort()).toEqual([
      "actual",
      "evidence",
      "expected",
      "id",
      "level",
      "ms",
      "requirement",
      "section",
      "source",
      "status",
      "transcript",
    ]);
    // A summary by section, in the console, the JSON and the JUnit report alike.
    expect(run.stdout).toMatch(/^process: \d+ passed, 0 failed, 0 warned, 0 not-applicable, 0 errors$/m);
    expect(report.summary.sections.process).toMatchObject({ fail: 0, error: 0 });
    const xml = readFileSync(junit, "utf8");
    expect(xml).toContain(`<testsuites name="venom-conformance" tests="${CHECKS.length}" failures="0" errors="0"`);
    expect(xml).toMatch(/<testsuite name="process" tests="\d+" failures="0" errors="0"/);
  });

  it("runs against a daemon it did not start (--socket), finds its home, warns without a canary, fails that warning under --strict", async () => {
    const home = mkdtempSync(join(scratch, "home-"));
    const workspace = mkdtempSync(join(scratch, "workspace-"));
    const daemon = await startBrokenDaemon({ home, workspace, faults: [], canary: "unused" });
    try {
      const args = ["--socket", daemon.target.socket, "--workspace", workspace, "--only", "instance/", "--only", "secrets/"];
      const run = await cli(...args);
      expect(run.stdout).toContain("PASS instance/private-files");
      expect(run.stdout).toContain("PASS secrets/logs");
      expect(run.stdout).toMatch(/^WARN secrets\/canary \([\d.]+s\): nothing to look for; no canary known/m);
      // Without --serve-command the suite cannot start another instance on a hostile home.
      expect(run.stdout).toMatch(/^N-A {2}instance\/hostile-home \([\d.]+s\): no way to start another instance/m);
      expect(run.stdout.trim().split("\n").at(-1)).toBe("2 passed, 0 failed, 1 warned, 1 not-applicable, 0 errors");
      expect(run.code).toBe(0);
      expect((await cli(...args, "--strict")).code).toBe(1);
    } finally {
      daemon.close();
    }
  });

  it("lists every check with its level and requirement", async () => {
    const run = await cli("--list");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual(CHECKS.map((check) => `${check.id}\t${check.level}\t${check.requirement.text}`));
  });

  it("lists which checks run against a given daemon, and why the others do not apply", async () => {
    const run = await cli("--list", "--target", "mux", "--only", "panes/", "--only", "process/run-");
    expect(run.code, run.stderr).toBe(0);
    const verdicts = run.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t").slice(0, 3));
    expect(verdicts).toEqual([
      ["process/run-markers", "MUST", "not-applicable: the daemon's hello offers no run tool"],
      ["process/run-record", "MUST", "not-applicable: the daemon's hello offers no run tool"],
      ["process/run-no-api-keys", "MUST", "not-applicable: the daemon's hello offers no run tool"],
      ["panes/cwd-containment", "MUST", "runs"],
      ["panes/delegated-process", "MUST", "runs"],
      ["panes/ownership", "MUST", "runs"],
      ["panes/start-up-env", "MUST", "runs"],
      ["panes/delegate-env", "MUST", "runs"],
    ]);
  });

  it("writes its reports and exits 3 when the daemon cannot be reached: every check an error, none a crash", async () => {
    const json = join(scratch, "unreachable.json");
    const junit = join(scratch, "unreachable.xml");
    const workspace = mkdtempSync(join(scratch, "workspace-"));
    const run = await cli("--socket", join(scratch, "nothing.sock"), "--workspace", workspace, "--json", json, "--junit", junit);
    expect(run.code, run.stderr).toBe(3);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.results).toHaveLength(CHECKS.length);
    expect(new Set(report.results.map((r: CheckResult) => r.status))).toEqual(new Set(["error"]));
    expect(report.results[0].actual).toMatch(/^the run could not start: .*ENOENT/);
    expect(readFileSync(junit, "utf8")).toContain(`errors="${CHECKS.length}"`);
    expect(run.stdout).toMatch(/^ERR {2}transport\/socket-mode \(0\.0s\): the run could not start/m);
  });

  it("passes venom-mux: every applicable check, the pane checks included", async () => {
    const run = await cli("--target", "mux");
    expect(run.stdout.split("\n").filter((line) => /^(FAIL|WARN)/.test(line))).toEqual([]);
    expect(run.stdout).toMatch(/^PASS panes\/cwd-containment \(/m);
    expect(run.stdout).toMatch(/^PASS panes\/delegated-process \(/m);
    expect(run.code, run.stdout).toBe(0);
  });

  it("passes venom-orch: every applicable check, the agent checks included", async () => {
    const run = await cli("--target", "orch", "--only", "orch/");
    expect(run.stdout.split("\n").filter((line) => /^(FAIL|WARN|N-A)/.test(line))).toEqual([]);
    for (const check of CHECKS.filter((c) => c.id.startsWith("orch/"))) expect(run.stdout).toContain(`PASS ${check.id} (`);
    expect(run.code, run.stdout).toBe(0);
  });

  it("refuses what it cannot do with exit 2", async () => {
    const unknown = await cli("--target", "tmux");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--target must be echo, mux or orch");
    expect((await cli()).code).toBe(2);
    expect((await cli("--target", "echo", "--only", "nothing/")).code).toBe(2);
    expect((await cli("--socket", join(scratch, "x.sock"), "--workspace", scratch, "--confined")).code).toBe(2);
  });

  it("--confined starts venom-echo with [sandbox] on: a run's process writes nothing outside, reads nothing of the home, connects nowhere, kills nothing outside", async () => {
    const confined = await cli("--target", "echo", "--confined", "--only", "confinement/");
    expect(confined.code, confined.stdout).toBe(0);
    expect(
      confined.stdout
        .split("\n")
        .filter((line) => /^(PASS|FAIL|N-A|ERR)/.test(line))
        .map((line) => line.split(" (")[0]),
    ).toEqual([
      "PASS confinement/write-outside",
      "PASS confinement/read-home",
      "PASS confinement/tcp-none",
      "PASS confinement/signal-outside",
    ]);
    // Without it the daemon confines nothing and says so: the checks do not apply.
    const plain = await cli("--target", "echo", "--only", "confinement/");
    expect(plain.stdout).toMatch(/^0 passed, 0 failed, 0 warned, 4 not-applicable, 0 errors$/m);
  });

  it("exits 0 only when every scored check passed", () => {
    const strict = { strict: true, knownFailures: [] };
    const lax = { strict: false, knownFailures: [] };
    expect(judge(results(["a", "pass"], ["b", "not-applicable"]), lax).exitCode).toBe(0);
    expect(judge(results(["a", "pass"], ["b", "fail"]), lax).exitCode).toBe(1);
    expect(judge(results(["b", "not-applicable"]), lax).exitCode).toBe(3);
    expect(judge(results(["a", "pass"], ["b", "error"]), lax).exitCode).toBe(3);
    expect(judge(results(["a", "fail"], ["b", "error"]), lax).exitCode).toBe(1);
    expect(judge(results(["a", "warn"]), lax).exitCode).toBe(0);
    expect(judge(results(["a", "warn"]), strict).exitCode).toBe(1);
    expect(judge(results(["a", "pass"], ["b", "fail"]), { strict: false, knownFailures: ["b"] })).toMatchObject({
      exitCode: 0,
      known: ["b"],
    });
    expect(judge(results(["a", "pass"]), { strict: false, knownFailures: ["a"] })).toMatchObject({ exitCode: 1, stale: ["a"] });
  });

  it("reads a known-failures file", async () => {
    const file = join(scratch, "known.txt");
    writeFileSync(file, "# none of these fail\ntransport/socket-mode  # stale\n");
    const run = await cli("--target", "echo", "--only", "transport/socket-mode", "--known-failures", file);
    expect(run.stdout).toContain("stale known failures (they no longer fail): transport/socket-mode");
    expect(run.code).toBe(1);
  });
});
