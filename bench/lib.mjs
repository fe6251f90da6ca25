// Shared helpers of the benchmark harness: paths, cleanup, a venom-mux daemon,
// a tmux server, a pty, and the little statistics the steps report.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VenomClient } from "../packages/runtime/dist/index.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const MUX = join(ROOT, "apps/multiplexer-lite/dist/main.cjs");
export const ECHO = join(ROOT, "apps/venom-echo/dist/main.cjs");
export const ORCH = join(ROOT, "apps/orchestrator-lite/dist/main.cjs");
/** node-pty as venom-mux itself loads it (same build, same version). */
export const pty = createRequire(join(ROOT, "apps/multiplexer-lite/package.json"))("node-pty");

export const MB = 1e6;
export const MiB = 1024 * 1024;

/**
 * Cleanups of the running step, run last-in first-out by `runCleanups`
 * whether the step passed or threw (and on SIGINT/SIGTERM of the harness).
 */
const cleanups = [];
export function defer(fn) {
  cleanups.push(fn);
}
export async function runCleanups() {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (error) {
      console.error(`bench: cleanup failed: ${error.message}`);
    }
  }
}

/** A private temporary directory, removed at cleanup. */
export function tempDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `venom-bench-${label}-`));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolve when `check()` is true; throw after `ms` with `what` in the message. */
export async function waitFor(check, ms, what) {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Race a promise against a timeout. */
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Environment for the programs under test: no outer tmux or venom pane leaks
 * in, and no NODE_OPTIONS or NODE_EXTRA_CA_CERTS (a CA bundle adds ~80 ms to
 * every Node start on some machines, which would flatter `ls` against `node -e 0`).
 */
export const DROPPED_ENV = ["TMUX", "TMUX_PANE", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS", "VENOM_*"];
export function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (DROPPED_ENV.some((d) => (d.endsWith("*") ? key.startsWith(d.slice(0, -1)) : key === d))) delete env[key];
  }
  return { ...env, ...extra };
}

function sh(file, args, options = {}) {
  return execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000, ...options });
}

/**
 * Is `pid` still running? A zombie is not: it has exited, and only its parent
 * has yet to reap it. A detached daemon's parent is the machine's init, which
 * on these machines reaps a second or two later; kill(pid, 0), which succeeds
 * on a zombie, counted that wait into the scale step's stop time.
 */
export function isAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(") ") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** VmRSS (and VmHWM) of a process in bytes, from /proc/PID/status. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** Clock ticks a second, for /proc's CPU times: asked of getconf once, on first use. */
let ticks;

/**
 * Each thread of a process, by thread id: its CPU time (utime+stime, from
 * /proc/PID/task/TID/stat) and how long it was ready to run but waited for a
 * CPU (run_delay, from /proc/PID/task/TID/schedstat; null where the kernel
 * keeps no schedstat), in seconds. A daemon that answers late because the
 * machine is full waits there; one that is busy itself does not.
 */
export function threadTimes(pid) {
  ticks ??= Number(version("getconf", ["CLK_TCK"])) || 100;
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      let waited = null;
      try {
        waited = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[1]) / 1e9;
      } catch {}
      threads.set(Number(tid), { cpu: (Number(fields[11]) + Number(fields[12])) / ticks, waited });
    } catch {} // a thread that ended while being read
  }
  return threads;
}

/** What each thread of `after` used and waited since `before` (both from threadTimes), busiest first. */
export function threadDeltas(before, after) {
  return [...after]
    .map(([tid, t]) => {
      const b = before.get(tid) ?? { cpu: 0, waited: 0 };
      return { tid, cpu: t.cpu - b.cpu, waited: t.waited === null || b.waited === null ? null : t.waited - b.waited };
    })
    .sort((a, b) => b.cpu - a.cpu);
}

/**
 * A venom-mux daemon in a private VENOM_HOME and workspace, stopped at cleanup:
 * `venom-mux stop` first, then SIGTERM/SIGKILL of the daemon and of every pane group it made.
 */
export async function startMux(label) {
  const dir = tempDir(label);
  const home = join(dir, "home");
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const env = cleanEnv({ VENOM_HOME: home });
  const cli = (...args) => sh(process.execPath, [MUX, ...args], { env, cwd: workspace });
  const panePids = new Set();
  let pid;
  defer(async () => {
    try {
      cli("stop");
    } catch {}
    if (pid === undefined) return;
    for (const signal of ["SIGTERM", "SIGKILL"]) {
      for (let i = 0; i < 50 && isAlive(pid); i++) {
        if (i === 0) process.kill(pid, signal);
        await sleep(100);
      }
    }
    for (const panePid of panePids) {
      try {
        process.kill(-panePid, "SIGKILL");
      } catch {}
    }
  });
  cli("start", "--workspace", workspace);
  pid = JSON.parse(cli("status", "--json")).pid;
  /** Start another app's daemon (main `ECHO` and name "echo", say) in the same home and workspace; stopped at cleanup. */
  const startApp = (main, name) => {
    const app = (...args) => sh(process.execPath, [main, ...args], { env, cwd: workspace });
    app("start", "--workspace", workspace);
    const appPid = JSON.parse(app("status", "--json")).pid;
    defer(async () => {
      try {
        app("stop");
      } catch {}
      for (let i = 0; i < 50 && isAlive(appPid); i++) {
        if (i === 0) process.kill(appPid, "SIGTERM");
        await sleep(100);
      }
      if (isAlive(appPid)) process.kill(appPid, "SIGKILL");
    });
    return { pid: appPid, socket: join(home, "state", `${name}.sock`) };
  };
  const socket = join(home, "state", "mux.sock");
  const clients = [];
  defer(() => {
    for (const client of clients) client.close();
  });
  return {
    pid,
    env,
    home,
    workspace,
    socket,
    cli,
    startApp,
    /**
     * A protocol client, the way `venom-mux attach` connects; onEvent gets notifications. It waits
     * as long as an answer takes (no 20 s request timeout): a slow answer is a measurement, not a failure.
     */
    async connect(onEvent = () => {}) {
      const client = await VenomClient.connect(socket, { client: { name: "venom-bench", version: "0" }, onEvent, requestTimeoutMs: 0 });
      clients.push(client);
      return client;
    },
    /** Open a pane through `client`; its pid is remembered for the cleanup of last resort. */
    async newPane(client, argv, name) {
      const pane = await client.request("pane/new", { argv, ...(name ? { name } : {}), cols: 80, rows: 24 });
      panePids.add(pane.pid);
      return pane;
    },
  };
}

/** A tmux server on a private socket, without user config or status line; killed at cleanup. */
export function startTmux(label) {
  const socket = join(tempDir(label), "tmux.sock");
  const env = cleanEnv();
  const tmux = (...args) => sh("tmux", ["-S", socket, "-f", "/dev/null", ...args], { env });
  defer(() => {
    try {
      tmux("kill-server");
    } catch {}
  });
  return {
    socket,
    env,
    tmux,
    /** A detached session running `command` in an 80x24 window. */
    newSession(name, command) {
      tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command, ";", "set", "-g", "status", "off");
    },
    /** A tmux client attached to `session` inside a pty, as a person's terminal would be. */
    attach(session) {
      return spawnPty("tmux", ["-S", socket, "attach", "-t", session], env);
    },
  };
}

/** A program in a node-pty pty (80x24), killed at cleanup. */
export function spawnPty(file, args, env = cleanEnv()) {
  const term = pty.spawn(file, args, { name: "xterm-256color", cols: 80, rows: 24, cwd: ROOT, env });
  let exited = false;
  term.onExit(() => {
    exited = true;
  });
  defer(() => {
    if (exited) return;
    try {
      process.kill(-term.pid, "SIGKILL");
    } catch {}
    try {
      term.kill("SIGKILL");
    } catch {}
  });
  return term;
}

/** Resolve once a pty's output has been quiet for `quietMs` (its program has finished drawing). */
export async function settle(term, quietMs = 300, maxMs = 10_000) {
  let last = performance.now();
  const listener = term.onData(() => {
    last = performance.now();
  });
  try {
    await waitFor(() => performance.now() - last >= quietMs, maxMs, "output to settle");
  } finally {
    listener.dispose();
  }
}

/**
 * Watch a stream of text chunks for `marker` (also across chunk boundaries),
 * counting bytes; `done` resolves with the byte count when the marker shows.
 */
export function markerWatch(marker) {
  let tail = "";
  let bytes = 0;
  let found;
  const done = new Promise((resolve) => {
    found = resolve;
  });
  return {
    done,
    get bytes() {
      return bytes;
    },
    push(data) {
      bytes += Buffer.byteLength(data);
      if (data.includes(marker) || (tail + data.slice(0, marker.length)).includes(marker)) found(bytes);
      tail = data.slice(-marker.length);
    },
  };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
export const median = (values) => percentile(values, 50);
/** "min / median / max" of values, each formatted with f. */
export const spread = (values, f) => `${f(Math.min(...values))} / ${f(median(values))} / ${f(Math.max(...values))}`;

/** Wall time of a spawned process in ms (spawnSync: no event loop in between); throws unless it exits with `status`. */
export function timeSpawn(file, args, options, status = 0) {
  const start = performance.now();
  const result = spawnSync(file, args, { stdio: ["ignore", "pipe", "pipe"], timeout: 30_000, ...options });
  const ms = performance.now() - start;
  if (result.status !== status) throw new Error(`${file} ${args.join(" ")} exited ${result.status}: ${String(result.stderr).trim()}`);
  return ms;
}

export function version(file, args) {
  try {
    return sh(file, args).trim();
  } catch {
    return "unknown";
  }
}

export const fmt = {
  ms: (v) => `${v.toFixed(2)} ms`,
  mbps: (v) => `${v.toFixed(1)} MB/s`,
  mib: (v) => `${(v / MiB).toFixed(1)} MiB`,
  ratio: (v) => `${v.toFixed(2)}×`,
};
