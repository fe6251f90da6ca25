import { createHook } from "node:async_hooks";
import { beforeAll, describe, expect, it } from "vitest";
import type { Check } from "../src/check.js";
import { CHECKS } from "../src/registry.js";
import { EXIT, judge } from "../src/report.js";
import type { CheckResult } from "../src/run.js";
import { FAULTS } from "./fixtures/broken-daemon.js";
import { FAULT_GROUPS, suiteAgainst } from "./suite-against.js";

/**
 * `run`'s result, and the timers it started that are still pending and would
 * keep a process open (a CLI run exits only when nothing is left).
 */
async function withTimersLeft<T>(run: () => Promise<T>): Promise<{ result: T; timersLeft: number }> {
  const pending = new Map<number, { hasRef(): boolean }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === "Timeout") pending.set(id, resource as { hasRef(): boolean });
    },
    destroy(id) {
      pending.delete(id);
    },
  }).enable();
  try {
    const result = await run();
    // A timer cleared or fired is destroyed on a later turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    return { result, timersLeft: [...pending.values()].filter((timer) => timer.hasRef()).length };
  } finally {
    hook.disable();
  }
}

describe("the suite against a deliberately broken daemon", () => {
  let clean: Map<string, CheckResult>;
  let timersLeft: number;
  beforeAll(async () => {
    ({ result: clean, timersLeft } = await withTimersLeft(() => suiteAgainst([])));
  });

  // instance/hostile-home once left a 20 s timer per home it tried: every CLI run then took 20 s, whatever its checks took.
  it("leaves no timer running once the run returns", () => {
    expect(timersLeft).toBe(0);
  });

  // Its write answers "ok" and its events say `"status":"ok"`: events/minimal must look for what calls carried, not any short text.
  it("passes the fixture with no fault on (it has no agents and confines nothing)", () => {
    const notApplicable = (id: string) => [id, expect.objectContaining({ status: "not-applicable" })];
    expect([...clean].filter(([, result]) => result.status !== "pass")).toEqual([
      ...CHECKS.filter((check) => check.id.startsWith("confinement/")).map((check) => notApplicable(check.id)),
      ...CHECKS.filter((check) => check.id.startsWith("orch/")).map((check) => notApplicable(check.id)),
    ]);
  });

  it("every fault of the fixture is tried, in exactly one of the faults-*.test.ts files", () => {
    expect(Object.values(FAULT_GROUPS).flat().sort()).toEqual([...FAULTS].sort());
  });
});

/** A check of the suite's own making, to see how the runner treats one that misbehaves. */
const misbehaving = (id: string, run: Check["run"]): Check => ({
  id,
  level: "MUST",
  requirement: CHECKS[0]!.requirement,
  expected: "nothing: it tests the runner",
  run,
});

describe("a check that misbehaves is an error, and the run goes on", () => {
  it("a throw, an unawaited promise that rejects, and a promise that never settles each end as that check's error; the others run", async () => {
    const checks = [
      misbehaving("self/throws", async () => {
        throw new TypeError("a bug in the check");
      }),
      misbehaving("self/unawaited", async (ctx) => {
        const { client } = await ctx.session({ label: "unawaited" });
        // The daemon answers this with an error: expectResult rejects, and nobody awaits it.
        void ctx.callTool(client, "no-such-tool", {});
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        return "finished as if nothing happened";
      }),
      misbehaving("self/pending", () => new Promise<string>(() => {})),
      CHECKS.find((check) => check.id === "grants/fingerprint")!,
    ];
    const results = await suiteAgainst([], { checks, checkTimeoutMs: 3_000 });
    expect([...results].map(([id, result]) => [id, result.status])).toEqual([
      ["self/throws", "error"],
      ["self/unawaited", "error"],
      ["self/pending", "error"],
      ["grants/fingerprint", "pass"],
    ]);
    expect(results.get("self/throws")?.actual).toBe("a bug in the check");
    expect(results.get("self/unawaited")?.actual).toMatch(/did not await failed: .*no-such-tool.*-32005/);
    expect(results.get("self/pending")?.actual).toBe("the check did not finish within 3s");
    const verdict = judge([...results.values()], { strict: false, knownFailures: [] });
    expect(verdict).toMatchObject({ exitCode: EXIT.error, counts: { pass: 1, error: 3 } });
  });
});
