// 5. Delegation overhead (issue 8; issue 11, item 4): `venom-orch run` of a
// trivial local agent until its result, against spawning the same program
// directly. Both are spawned and waited for as a script would; the venom run
// includes the CLI's start, the approval (declared by --yes), the pane in
// venom-mux, the /proc argv check, the wait and the captured tail.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmt, median, percentile, ROOT, startMux, timeSpawn } from "./lib.mjs";

export const title = "`venom-orch run` of a trivial agent against spawning it directly";

const ORCH = join(ROOT, "apps/orchestrator-lite/dist/main.js");
const AGENT = join(ROOT, "apps/orchestrator-lite/agents/demo-agent.mjs");
const WARMUP = 2;

export async function run({ quick }) {
  const n = quick ? 3 : 20;
  const mux = await startMux("delegation");
  const home = mux.env.VENOM_HOME;
  writeFileSync(join(home, "config.toml"), `[agents.demo]\nexecutable = "${AGENT}"\n`, { mode: 0o600 });
  const orch = (...args) => timeSpawn(process.execPath, [ORCH, ...args], { env: mux.env, cwd: mux.workspace });
  orch("start", "--workspace", mux.workspace);
  try {
    const commands = {
      direct: [AGENT, ["hello"], { env: { ...mux.env, HOME: join(home, "agents", "demo") }, cwd: mux.workspace }],
      venom: [process.execPath, [ORCH, "run", "demo", "hello", "--yes"], { env: mux.env, cwd: mux.workspace }],
    };
    const times = { direct: [], venom: [] };
    for (let i = 0; i < WARMUP + n; i++) {
      for (const [name, [file, args, options]] of Object.entries(commands)) {
        const ms = timeSpawn(file, args, options);
        if (i >= WARMUP) times[name].push(ms);
      }
    }
    const med = { direct: median(times.direct), venom: median(times.venom) };
    const row = (label, name) => [label, fmt.ms(med[name]), fmt.ms(Math.min(...times[name])), fmt.ms(percentile(times[name], 90))];
    const ratio = med.venom / med.direct;
    return {
      title,
      setup: `each spawned and waited for, ${n} times after ${WARMUP} warm-up, interleaved. direct: the demo agent (\`apps/orchestrator-lite/agents/demo-agent.mjs hello\`, a Node script); venom: \`venom-orch run demo hello --yes\` with venom-orch and venom-mux already running.`,
      columns: ["command", "median", "min", "p90"],
      rows: [row("demo agent, spawned directly", "direct"), row("venom-orch run demo", "venom")],
      ratios: [["venom-orch run / direct", fmt.ratio(ratio)]],
      targets: [{ target: "`venom-orch run` within 1.3× spawning the agent directly", measured: fmt.ratio(ratio), met: ratio <= 1.3 }],
      data: { n, times },
    };
  } finally {
    orch("stop");
  }
}
