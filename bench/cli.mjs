// 3. CLI start (issue 11, item 1): the wall time of each client command an
// agent runs in a loop, spawned as a script runs it, against `node -e 0` (the
// floor for any Node CLI) and `tmux ls`, with running daemons (venom-mux with
// one pane, venom-echo, venom-orch) in one home. All get the same environment
// (lib.mjs cleanEnv).
import { cleanEnv, DROPPED_ENV, ECHO, fmt, MUX, median, ORCH, startMux, startTmux, timeSpawn } from "./lib.mjs";

export const title = "CLI start: client commands against `node -e 0`";

const TARGET = 1.5;

export async function run({ quick }) {
  const n = quick ? 3 : 20;
  const WARMUP = quick ? 1 : 3;
  const mux = await startMux("cli-mux");
  const client = await mux.connect();
  const pane = await mux.newPane(client, ["cat"]);
  client.close();
  mux.startApp(ECHO, "echo");
  mux.startApp(ORCH, "orch");
  const tmux = startTmux("cli-tmux");
  tmux.newSession("ls", "cat");

  const venom = (main, ...args) => [process.execPath, [main, ...args], { env: mux.env, cwd: mux.workspace }];
  const commands = {
    "node -e 0": [process.execPath, ["-e", "0"], { env: cleanEnv() }],
    "tmux ls": ["tmux", ["-S", tmux.socket, "ls"], { env: tmux.env }],
    "venom-mux ls": venom(MUX, "ls"),
    "venom-mux send": venom(MUX, "send", "-t", pane.id, "x"),
    "venom-mux capture": venom(MUX, "capture", "-t", pane.id),
    "venom-echo call echo": venom(ECHO, "call", "echo", '{"text":"x"}'),
    "venom-echo status": venom(ECHO, "status"),
    "venom-orch jobs": venom(ORCH, "jobs"),
    "venom-orch agents list": venom(ORCH, "agents", "list"),
  };
  const names = Object.keys(commands);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  // Interleaved rounds: noise on a shared machine hits every command alike, and each round gives one ratio.
  for (let i = 0; i < WARMUP + n; i++) {
    for (const name of names) {
      const [file, args, options] = commands[name];
      const ms = timeSpawn(file, args, options);
      if (i >= WARMUP) times[name].push(ms);
    }
  }

  const floor = times["node -e 0"];
  const ratios = (name) => times[name].map((ms, i) => ms / floor[i]);
  const medianRatio = (name) => median(times[name]) / median(floor);
  const row = (name) => {
    const r = ratios(name);
    return [
      name,
      fmt.ms(median(times[name])),
      fmt.ms(Math.min(...times[name])),
      fmt.ms(Math.max(...times[name])),
      fmt.ratio(medianRatio(name)),
      `${fmt.ratio(Math.min(...r))} / ${fmt.ratio(median(r))} / ${fmt.ratio(Math.max(...r))}`,
    ];
  };
  const clients = names.filter((name) => name.startsWith("venom-"));
  return {
    title,
    setup: `each command spawned and waited for (spawnSync), ${n} rounds after ${WARMUP} warm-up, every command once per round (interleaved); daemons running in one VENOM_HOME: venom-mux with one pane (\`cat\`), venom-echo, venom-orch; a tmux server with one pane. venom commands run as \`node apps/APP/dist/main.js …\` (what "bin" and testkit run); all without ${DROPPED_ENV.join(", ")} in the environment.`,
    columns: ["command", "median", "min", "max", "median ÷ node -e 0", "per-round ratio min / median / max"],
    rows: names.map(row),
    ratios: [
      ...clients.map((name) => [`${name} / node -e 0 (medians)`, fmt.ratio(medianRatio(name))]),
      ["venom-mux ls / tmux ls (medians)", fmt.ratio(median(times["venom-mux ls"]) / median(times["tmux ls"]))],
    ],
    notes:
      "What a client command still loads (profile with `node --cpu-prof apps/multiplexer-lite/dist/main.js ls`): Node's own start and ESM loader, one bundled file of ~10–40 KB and a couple of small shared chunks, `node:net`, and the round trip. `venom-orch agents list` reads the configuration, whose schemas are zod: that command loads zod (a ~800 KB chunk) and pays for it. Node 20 has no `module.enableCompileCache`; on Node 22+ the CLIs turn it on (feature-detected).",
    targets: clients.map((name) => {
      const ratio = medianRatio(name);
      return { target: `\`${name}\` start within ${TARGET}× \`node -e 0\``, measured: fmt.ratio(ratio), met: ratio <= TARGET };
    }),
    data: { n, times },
  };
}
