// 5. Delegation overhead (docs/benchmarks.md, "`venom-orch run` of a trivial agent"): `venom-orch run` of a
// trivial local agent until its result, against spawning the same program
// directly. Both are spawned and waited for as a script would; the venom run
// includes the CLI's start, the approval (declared by --yes), the pane in
// venom-mux, the /proc argv check, the wait and the captured tail. Its
// progress lines on stderr, time-stamped as they arrive, split it into phases.

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, fmt, median, ROOT, spread, startMux, timeSpawn, within } from "./lib.mjs";

export const title = "`venom-orch run` of a trivial agent against spawning it directly";

const ORCH = join(ROOT, "apps/orchestrator-lite/dist/main.cjs");
const AGENT = join(ROOT, "apps/orchestrator-lite/agents/demo-agent.mjs");
const TARGET = 1.3;

/** The phases of one run, each ending when its progress line arrives (the last when the CLI exits). */
const PHASES = [
  ["CLI start, hello, approval, job record", / starting$/],
  ["pane/new in venom-mux, argv seen in /proc", / running$/],
  ["the agent runs; pane/wait, tail captured", / done exit 0$/],
  ["pane/kill, the reply, the CLI exits", null],
];

/** Wall time of a spawned process and the arrival time of each stderr line; rejects unless it exits 0. */
function timeLines(file, args, options) {
  const start = performance.now();
  const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"], ...options });
  const lines = [];
  let partial = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    const at = performance.now() - start;
    const parts = (partial + chunk).split("\n");
    partial = parts.pop();
    for (const text of parts) lines.push({ at, text });
  });
  const exited = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolve({ ms, lines });
      else reject(new Error(`${args.join(" ")} exited ${code}: ${lines.map((l) => l.text).join(" | ")}`));
    });
  });
  return within(exited, 60_000, args.join(" "));
}

/** Durations of PHASES in one run: from each phase's end back to the previous one's. */
function phases({ ms, lines }) {
  const ends = PHASES.map(([, line]) => (line ? lines.find((l) => line.test(l.text))?.at : ms));
  if (ends.some((end) => end === undefined)) throw new Error(`a progress line is missing: ${lines.map((l) => l.text).join(" | ")}`);
  return ends.map((end, i) => end - (i === 0 ? 0 : ends[i - 1]));
}

export async function run({ quick }) {
  const n = quick ? 2 : 20;
  const WARMUP = quick ? 1 : 2;
  const coldRounds = quick ? 1 : 5;
  const mux = await startMux("delegation");
  const home = mux.env.VENOM_HOME;
  writeFileSync(join(home, "config.toml"), `[agents.demo]\nexecutable = "${AGENT}"\n`, { mode: 0o600 });
  const orch = (...args) => timeSpawn(process.execPath, [ORCH, ...args], { env: mux.env, cwd: mux.workspace });
  orch("start", "--workspace", mux.workspace);
  try {
    const direct = [AGENT, ["hello"], { env: { ...mux.env, HOME: join(home, "agents", "demo") }, cwd: mux.workspace }];
    const runAgent = () => timeLines(process.execPath, [ORCH, "run", "demo", "hello", "--yes"], { env: mux.env, cwd: mux.workspace });
    const times = { node: [], direct: [], venom: [], floor: [], cold: [], coldDirect: [] };
    const split = [];
    // Warm, as for a user who runs many jobs: venom-orch and venom-mux already running.
    // Interleaved rounds: noise on a shared machine hits all three alike, and each round gives one ratio.
    for (let i = 0; i < WARMUP + n; i++) {
      const node = timeSpawn(process.execPath, ["-e", "0"], { env: cleanEnv() });
      const agent = timeSpawn(...direct);
      const venom = await runAgent();
      if (i < WARMUP) continue;
      times.node.push(node);
      times.direct.push(agent);
      times.floor.push(node + agent);
      times.venom.push(venom.ms);
      split.push(phases(venom));
    }
    // Cold: venom-mux stopped before each run, so `run` starts it (venom-orch stays up: `run` does not start it).
    for (let i = 0; i < coldRounds; i++) {
      mux.cli("stop");
      times.coldDirect.push(timeSpawn(...direct));
      times.cold.push((await runAgent()).ms);
    }
    const ratios = times.venom.map((ms, i) => ms / times.direct[i]);
    const ratio = median(times.venom) / median(times.direct);
    const floorRatio = median(times.floor) / median(times.direct);
    const added = times.venom.map((ms, i) => ms - times.floor[i]);
    const coldRatio = median(times.cold) / median(times.coldDirect);
    const row = (label, name, reference = "direct") => [
      label,
      spread(times[name], fmt.ms),
      fmt.ratio(median(times[name]) / median(times[reference])),
    ];
    return {
      title,
      setup: `each spawned and waited for. Warm: ${n} rounds after ${WARMUP} warm-up, the three once per round (interleaved), venom-orch and venom-mux already running (a user who runs many jobs). Cold: ${coldRounds} rounds with venom-mux stopped before each \`run\`, which starts it. direct: the demo agent (\`apps/orchestrator-lite/agents/demo-agent.mjs hello\`, a Node script); venom: \`venom-orch run demo hello --yes\`; \`node -e 0\` for scale.`,
      columns: ["command", "wall min / median / max", "median ÷ direct"],
      rows: [
        row("`node -e 0`", "node"),
        row("demo agent, spawned directly", "direct"),
        row("floor: `node -e 0` + the agent, each round (a Node CLI cannot start faster)", "floor"),
        row("`venom-orch run demo hello --yes`, warm", "venom"),
        ...PHASES.map(([label], p) => [
          `  phase: ${label}`,
          spread(
            split.map((s) => s[p]),
            fmt.ms,
          ),
          "",
        ]),
        ["  venom's own time: run − floor, each round", spread(added, fmt.ms), ""],
        row("`venom-orch run demo hello --yes`, cold (starts venom-mux)", "cold", "coldDirect"),
      ],
      ratios: [
        ["venom-orch run / direct, warm (medians)", fmt.ratio(ratio)],
        ["venom-orch run / direct, warm, per round (min / median / max)", spread(ratios, fmt.ratio)],
        ["floor (node -e 0 + agent) / direct (medians)", fmt.ratio(floorRatio)],
        ["venom-orch run / floor, warm (medians)", fmt.ratio(median(times.venom) / median(times.floor))],
        ["venom-orch run / direct, cold (medians)", fmt.ratio(coldRatio)],
      ],
      notes:
        "A run holds two Node starts in sequence (the `venom-orch` CLI, then the agent, itself a Node script), so no `run` can beat the floor row, about (CLI start + agent) ÷ agent ≈ 1.6–2× with an agent this short: the 1.3× target cannot be met with a Node CLI and a Node agent of ~100 ms, and is reported as missed. What venom adds on top of the floor is in the phases. The first holds the CLI's start (see the CLI start step) and, in venom-orch, the hello's peer check, the approval round trip to the CLI (declared by --yes, still asked), and the job record. The second holds venom-orch's connection to venom-mux (peer check), pane/new (node-pty forks the daemon; venom-pty-exec sets the pty's termios and execs the agent, where a shell running `stty` took two more processes until this build; the delegation record is written, not fsynced: it describes a live process, and none outlives a power loss), and the /proc argv check. The third is the agent itself under the pty, pane/wait, the tail captured from the screen model and the final job record (fsynced before the result). The last is pane/kill of the exited pane (its group was stopped when it exited: awaited, not scanned again) and the CLI's exit. None of the security steps (grants, approval, delegation record, markers, argv check) is skipped; job records are written on Node's thread pool, one job's in order, so the launch goes on while a disk syncs (the first record's fsync, 5–7 ms here, came before venom-orch reached venom-mux until this build); the final one is on file before the result. A cold run starts venom-mux: venom-orch spawns venom-mux's `serve` itself (through `venom-mux start`, as before this build, it cost one more Node start: ~530 against ~436 ms median in a 7-run A/B), and venom-mux's screen worker, which the tail's capture waits for, loads one bundled file (its first answer came ~130 ms after it started as tsc's ES modules, ~95 ms bundled). Timed inside the daemons (a build with timestamps, 30 runs on this machine): of the second phase, venom-orch's connection and hello take 4–5 ms, node-pty's spawn of the pane 6–7.5 ms, venom-mux's delegation record 1–2 ms and each reply's hop about 2 ms; of the last, the CLI's exit after its output takes 8–13 ms, Node's own teardown about 7 of them (`node -e \"console.log(1)\"` timed the same way). The spawn is the largest step Venom adds, and it grows with venom-mux's RSS: node-pty starts a pane with forkpty, which copies the daemon's page tables (3.7 ms at 46 MB, 12 ms at 1.1 GB, in an earlier measurement), while the whole daemon waits. posix_spawn (glibc's shares the parent's memory until the exec) would take that away; node-pty offers no other way on Linux, so it needs a pty layer of Venom's own, not built.",
      targets: [
        {
          target: `\`venom-orch run\` within ${TARGET}× spawning the agent directly (warm)`,
          measured: `${fmt.ratio(ratio)} (floor ${fmt.ratio(floorRatio)}; cold ${fmt.ratio(coldRatio)})`,
          met: ratio <= TARGET,
        },
      ],
      data: { n, coldRounds, times, phases: split },
    };
  } finally {
    orch("stop");
  }
}
