import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECKS } from "../src/registry.js";
import { runConformance, type Status } from "../src/run.js";
import { FAULTS, type Fault, startBrokenDaemon } from "./fixtures/broken-daemon.js";

/**
 * The checks each fault of the fixture must fail: these and no others. A fault
 * that breaks two rules (the fixture serves calls before hello on both of its
 * transports; a 0666 socket is also a file of the instance open to others)
 * must be caught by both.
 */
const CAUGHT_BY: Record<Fault, string[]> = {
  "before-hello": ["handshake/first-message", "stdio/hello-required"],
  "socket-mode": ["transport/socket-mode", "instance/private-files"],
  "no-peer-check": ["identity/foreign-uid"],
  "no-frame-limit": ["framing/oversize"],
  "ignore-markers": ["identity/delegate-markers"],
  "follow-symlinks": ["containment/path-escapes", "containment/symlink-race"],
  toctou: ["containment/symlink-race"],
  "log-env": ["secrets/canary"],
  "no-group-kill": ["process/group-kill-timeout", "process/group-kill-cancel"],
  "unbounded-output": ["process/output-bounded"],
  "tcp-listen": ["transport/no-remote-listen"],
  "leaky-events": ["events/minimal"],
};

/** Every check of the suite against the fixture with these faults on. */
async function suiteAgainst(faults: Fault[]): Promise<Map<string, { status: Status; actual: string }>> {
  const home = mkdtempSync(join(tmpdir(), "conformance-fixture-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "conformance-fixture-workspace-"));
  const daemon = await startBrokenDaemon({ home, workspace, faults, canary: `canary-${randomBytes(12).toString("hex")}` });
  try {
    const report = await runConformance(daemon.target, { checks: CHECKS, raceRounds: 500 });
    return new Map(report.results.map((result) => [result.id, result]));
  } finally {
    daemon.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

const failing = (results: Map<string, { status: Status }>) =>
  [...results]
    .filter(([, result]) => result.status === "fail")
    .map(([id]) => id)
    .sort();

describe("the suite against a deliberately broken daemon", () => {
  let clean: Map<string, { status: Status; actual: string }>;
  beforeAll(async () => {
    clean = await suiteAgainst([]);
  });

  it("passes the fixture with no fault on (it has no write tool, no panes, no agents)", () => {
    const notApplicable = (id: string) => [id, expect.objectContaining({ status: "not-applicable" })];
    expect([...clean].filter(([, result]) => result.status !== "pass")).toEqual([
      notApplicable("write/expected-hash"),
      notApplicable("panes/cwd-containment"),
      notApplicable("panes/delegated-process"),
      ...CHECKS.filter((check) => check.id.startsWith("orch/")).map((check) => notApplicable(check.id)),
    ]);
  });

  it.each(FAULTS)("catches fault %s with exactly its intended checks", async (fault) => {
    const results = await suiteAgainst([fault]);
    expect(failing(results)).toEqual([...CAUGHT_BY[fault]].sort());
  });
});
