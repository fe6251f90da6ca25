// Daemon start: `venom-X start` until the daemon answers on its socket (what
// the first `venom-mux new` or `venom-orch run` of a session waits for),
// against a tmux server's start (`tmux new-session -d`) and `node -e 0`.
// Recorded; the issues set no target for it.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, defer, ECHO, fmt, MUX, median, ORCH, spread, tempDir, timeSpawn } from "./lib.mjs";

export const title = "Daemon start: `start` until the daemon answers, against a tmux server's start";

const WARMUP = 2;

/** `start` and `stop` of one app's daemon in a private VENOM_HOME; stopped at cleanup whatever happens. */
function daemon(main, label) {
  const dir = tempDir(`start-${label}`);
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const options = { env: cleanEnv({ VENOM_HOME: join(dir, "home") }), cwd: workspace };
  const stop = () => spawnSync(process.execPath, [main, "stop"], { ...options, stdio: "ignore", timeout: 30_000 });
  defer(stop);
  return { start: () => timeSpawn(process.execPath, [main, "start", "--workspace", workspace], options), stop };
}

function tmuxServer() {
  const socket = join(tempDir("start-tmux"), "tmux.sock");
  const options = { env: cleanEnv() };
  const stop = () => spawnSync("tmux", ["-S", socket, "kill-server"], { ...options, stdio: "ignore", timeout: 30_000 });
  defer(stop);
  return { start: () => timeSpawn("tmux", ["-S", socket, "-f", "/dev/null", "new-session", "-d", "cat"], options), stop };
}

export async function run({ quick }) {
  const n = quick ? 2 : 10;
  const systems = {
    "node -e 0": { start: () => timeSpawn(process.execPath, ["-e", "0"], { env: cleanEnv() }), stop: () => {} },
    "tmux new-session -d (starts the server)": tmuxServer(),
    "venom-echo start": daemon(ECHO, "echo"),
    "venom-mux start": daemon(MUX, "mux"),
    "venom-orch start": daemon(ORCH, "orch"),
  };
  const times = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
  // Interleaved, each stopped before the next round: noise on a shared machine hits every system alike.
  for (let i = 0; i < WARMUP + n; i++) {
    for (const [name, system] of Object.entries(systems)) {
      const ms = system.start();
      system.stop();
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  const node = median(times["node -e 0"]);
  const tmux = median(times["tmux new-session -d (starts the server)"]);
  const venom = Object.keys(systems).filter((name) => name.startsWith("venom"));
  return {
    title,
    setup: `each command spawned and waited for (spawnSync), ${n} rounds after ${WARMUP} warm-up, every system once per round and stopped before the next (interleaved). \`venom-X start\` spawns the daemon detached (\`serve\`) and returns once it answers on its socket, polling every 10 ms; each app in a VENOM_HOME of its own, no configuration file.`,
    columns: ["command", "wall min / median / max", "median ÷ node -e 0"],
    rows: Object.keys(systems).map((name) => [name, spread(times[name], fmt.ms), fmt.ratio(median(times[name]) / node)]),
    ratios: venom.map((name) => [`${name} / tmux new-session -d (medians)`, fmt.ratio(median(times[name]) / tmux)]),
    targets: venom.map((name) => ({
      target: `\`${name}\` until it answers (recorded; no target)`,
      measured: `${fmt.ms(median(times[name]))} (${fmt.ratio(median(times[name]) / tmux)} tmux's)`,
      met: null,
    })),
    notes:
      "A daemon's code is bundled like its CLI's (scripts/bundle.mjs): `serve` requires one file, `dist/daemon.cjs`, with the configuration's loader in it. Loaded as tsc's ES modules (some 230 files for venom-mux, 64 of them zod's locales, which zod's namespace exports), the daemon took about twice as long to answer: `serve` answered after 550–710 ms, bundled after 250–275 ms (each app's, a shell loop waiting for its socket, three runs each, on this machine). venom-orch loads the ACP SDK only for an ACP turn: it cost its every start 30–70 ms. What remains is mostly Node's own start, the daemon's modules (zod and the wire schemas, pino) and what `start` adds: its own CLI start and a poll of the socket every 10 ms (every 50 ms before, which cost some 20 ms of a start on average). A V8 code cache of `dist/daemon.cjs` (vm.Script cachedData made after its top level ran) was tried: requiring the file took ~71 against ~85 ms, some 15 ms of a start, and was not built (a loader of its own for one file, and a cache to keep in step with it).",
    data: { n, times },
  };
}
