// 8. Conformance run time per target (docs/benchmarks.md, "Conformance run time"): `venom-conformance
// --target T` (start our daemon in a temporary home, run the checks, stop
// it), spawned and waited for; venom-echo, the reference daemon, is the
// reference for the others. Recorded, with no target.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { cleanEnv, fmt, median, ROOT } from "./lib.mjs";

export const title = "Conformance run time per target";

const CONFORMANCE = join(ROOT, "conformance/dist/main.js");
const TARGETS = ["echo", "mux", "orch"];

/** Wall time and verdict of one run (it exits 1 when a check fails: recorded, not thrown). */
function runOnce(target, only) {
  const args = [CONFORMANCE, "--target", target, ...only.flatMap((prefix) => ["--only", prefix])];
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"], timeout: 1_800_000 });
  const ms = performance.now() - start;
  if (result.status !== 0 && result.status !== 1) {
    // Exit 3 is a check that ended in error: its ERR line is in the console report, on stdout.
    const errors = String(result.stdout)
      .split("\n")
      .filter((line) => line.startsWith("ERR "));
    const why = [...errors, String(result.stderr).trim()].filter(Boolean).join("; ");
    throw new Error(`venom-conformance --target ${target} exited ${result.status}: ${why.slice(-1000)}`);
  }
  return { ms, passed: result.status === 0 };
}

export async function run({ quick }) {
  const repeats = quick ? 1 : 3;
  const only = quick ? ["framing/"] : [];
  const times = Object.fromEntries(TARGETS.map((t) => [t, []]));
  const verdicts = Object.fromEntries(TARGETS.map((t) => [t, []]));
  // Interleaved: noise on a shared machine hits every target alike.
  for (let i = 0; i < repeats; i++) {
    for (const target of TARGETS) {
      const { ms, passed } = runOnce(target, only);
      times[target].push(ms);
      verdicts[target].push(passed ? "pass" : "FAIL");
    }
  }
  const reference = median(times.echo);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  return {
    title,
    setup: `\`node conformance/dist/main.js --target T${quick ? " --only framing/" : ""}\` (every check${quick ? " whose id starts with framing/" : ""}, including starting and stopping the daemon in a temporary home), ${repeats} run(s) per target, interleaved.`,
    columns: ["target", "median", "min", "max", "÷ venom-echo", "verdict per run"],
    rows: TARGETS.map((target) => [
      `venom-${target}`,
      seconds(median(times[target])),
      seconds(Math.min(...times[target])),
      seconds(Math.max(...times[target])),
      fmt.ratio(median(times[target]) / reference),
      verdicts[target].join(", "),
    ]),
    ratios: TARGETS.filter((t) => t !== "echo").map((target) => [
      `venom-${target} / venom-echo run time`,
      fmt.ratio(median(times[target]) / reference),
    ]),
    notes:
      "Most of a run is checks that wait on purpose, measured from `--json` on this machine: for venom-echo, handshake/idle-closed waits for the daemon to close a connection that never says hello (5 s), containment/symlink-race-write races a symlink swapper (~3 s), and process/group-kill-timeout and -cancel each wait out a 2 s grace; venom-mux and venom-orch offer none of the tools those need. Until this build every run took about 21 s, whatever its checks took: instance/hostile-home left a 20 s timer for each hostile home it tried, and the suite's process stayed up until the last fired (conformance/test/self-test.test.ts now fails a run that leaves a timer pending).",
    targets: TARGETS.map((target) => ({
      target: `conformance run time, venom-${target} (recorded; no target)`,
      measured: seconds(median(times[target])),
      met: null,
    })),
    data: { repeats, only, times, verdicts },
  };
}
