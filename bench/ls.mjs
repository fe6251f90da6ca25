// 3. `venom-mux ls` wall time (a spawned process, as a person or script runs
// it) against `node -e 0` (the floor for any Node CLI) and `tmux ls`, each
// with a running server that has one pane. All three get the same
// environment (lib.mjs cleanEnv).
import { cleanEnv, DROPPED_ENV, fmt, MUX, median, percentile, startMux, startTmux, timeSpawn } from "./lib.mjs";

export const title = "`venom-mux ls` wall time against `node -e 0` and `tmux ls`";

const WARMUP = 3;

export async function run({ quick }) {
  const n = quick ? 5 : 30;
  const mux = await startMux("ls-mux");
  const client = await mux.connect();
  await mux.newPane(client, ["cat"]);
  client.close();
  const tmux = startTmux("ls-tmux");
  tmux.newSession("ls", "cat");

  const commands = {
    node: [process.execPath, ["-e", "0"], { env: cleanEnv() }],
    tmux: ["tmux", ["-S", tmux.socket, "ls"], { env: tmux.env }],
    venom: [process.execPath, [MUX, "ls"], { env: mux.env, cwd: mux.workspace }],
  };
  const times = { node: [], tmux: [], venom: [] };
  // Interleaved: noise on a shared machine hits every command alike.
  for (let i = 0; i < WARMUP + n; i++) {
    for (const [name, [file, args, options]] of Object.entries(commands)) {
      const ms = timeSpawn(file, args, options);
      if (i >= WARMUP) times[name].push(ms);
    }
  }

  const med = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
  const row = (label, name) => [
    label,
    fmt.ms(med[name]),
    fmt.ms(Math.min(...times[name])),
    fmt.ms(percentile(times[name], 90)),
    fmt.ratio(med[name] / med.node),
  ];
  const vsNode = med.venom / med.node;
  return {
    title,
    setup: `each command spawned and waited for (spawnSync), ${n} times each after ${WARMUP} warm-up, interleaved; the venom-mux daemon and the tmux server each run one pane (\`cat\`). venom: \`node apps/multiplexer-lite/dist/main.js ls\` (VENOM_HOME set); tmux: \`tmux -S SOCKET ls\`; all without ${DROPPED_ENV.join(", ")} in the environment.`,
    columns: ["command", "median", "min", "p90", "÷ node -e 0"],
    rows: [row("node -e 0", "node"), row("tmux ls", "tmux"), row("venom-mux ls", "venom")],
    ratios: [
      ["venom-mux ls / node -e 0", fmt.ratio(vsNode)],
      ["venom-mux ls / tmux ls", fmt.ratio(med.venom / med.tmux)],
    ],
    targets: [{ target: "`ls` within 1.5× `node -e 0`", measured: fmt.ratio(vsNode), met: vsNode <= 1.5 }],
    data: { n, times },
  };
}
