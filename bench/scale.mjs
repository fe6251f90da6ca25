// 7. Scale against tmux (docs/benchmarks.md, "Scale"): many panes, each printing a line
// every 10 ms after filling its scrollback, in venom-mux and then in one tmux
// server (one at a time, so neither competes with the other's panes): daemon
// CPU time, RSS at start, middle and end of the soak, RSS per pane, and the
// latency of capturing one pane while the others print.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, startFloor } from "./floor.mjs";
import {
  cleanEnv,
  fmt,
  isAlive,
  MiB,
  median,
  memory,
  percentile,
  sleep,
  spread,
  startMux,
  startTmux,
  tempDir,
  threadDeltas,
  threadTimes,
  timeSpawn,
  waitFor,
} from "./lib.mjs";

export const title = "Scale: busy panes in venom-mux and in tmux";

/** venom-mux's default scrollback; tmux is set to the same (its own default is 2000). */
const SCROLLBACK = 10_000;
const CAPTURE_EVERY_MS = 100;
const COLS = 80;
const ROWS = 24;
/**
 * What docs/venom-mux.md ("Bounds") gives a screen model, and the screen
 * budget counts: about 12 bytes a cell plus 600 bytes a line, scrollback included.
 */
const MODEL_BYTES = (ROWS + SCROLLBACK) * (COLS * 12 + 600);
/** Whether the kernel schedules each session as a group of its own, as the setup says it. */
const AUTOGROUP = (() => {
  try {
    const on = readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
    return `kernel.sched_autogroup_enabled is ${on ? "on" : "off"} on this machine`;
  } catch {
    return "this kernel has no autogroup scheduling";
  }
})();

/** CPU time of the whole machine, busy and in all, in ticks from /proc/stat (busy: all but idle and iowait). */
function machineTicks() {
  const ticks = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  const all = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: all - ticks[3] - ticks[4], all };
}

/**
 * Fill the scrollback, say so, wait for the go file, then a line every 10 ms.
 * The busy loops start together once every pane has filled: made one by one
 * while the others already print, 200 panes took minutes to make on a 2-core
 * machine, and their fill overlapped the soak. The printer is perl, not a
 * shell loop: 200 bash loops (`echo; read -t 0.01`) took some 70% of both
 * cores of this machine by themselves (perl's take under half, most of it the
 * kernel's pty writes and wakeups), so the bench measured the scheduler rather
 * than the multiplexer. Both run the same perl, whatever the user's
 * shell is (tmux's shell only splits the command line).
 */
const FILLED = "scrollback-filled";
/**
 * After the soak, the panes slow to a line every 100 ms once the file `go`.slow
 * exists (looked for every 50 lines, so the check adds no load of its own).
 */
const SLOW_MS = 100;
const PRINTER = [
  "$| = 1; my ($n, $go) = @ARGV; my ($pause, $i) = (0.01, 0);",
  `print "$_\\n" for 1 .. $n; print "${FILLED}\\n";`,
  "select(undef, undef, undef, 0.2) until -e $go;",
  'while (1) { printf "line %d %d\\n", rand 32768, rand 32768;',
  `$pause = ${SLOW_MS / 1000} if !(++$i % 50) && -e "$go.slow"; select(undef, undef, undef, $pause) }`,
].join(" ");
const paneArgv = (prefill, go) => ["perl", "-e", PRINTER, String(prefill), go];
/** The same argv as one shell command, for tmux's new-window (PRINTER has no single quote; `go` is a temp path). */
const paneCommand = (prefill, go) => `perl -e '${PRINTER}' ${prefill} ${go}`;

/** Wait until every pane has filled its scrollback, asking `capture(i)` for pane i (0-based) until it says so, then the next. */
async function untilFilled(panes, capture, what) {
  for (let i = 0; i < panes; i++)
    await waitFor(async () => (await capture(i)).includes(FILLED), 600_000, `${what} ${i} to fill its scrollback`);
}

/** The soak is also measured in thirds, each a repeat of the same load: min / median / max over them. */
const PARTS = 3;

/**
 * Soak for `soakMs`: capture one pane every 100 ms with `capture()`, RSS at
 * start, middle and end, and after each capture (its highest, and the samples
 * a trend is fitted to), CPU time over the soak and over each third, the
 * daemon's wait for a CPU and how busy the whole machine was.
 */
async function soak(pid, soakMs, capture, ping) {
  const rss = { start: memory(pid).rss, max: 0, samples: [] };
  const threadsAt = [threadTimes(pid)];
  const machine0 = machineTicks();
  const started = performance.now();
  const latencies = [];
  const floor = [];
  const parts = Array.from({ length: PARTS }, () => []);
  rss.samples.push([0, rss.start]);
  while (performance.now() - started < soakMs) {
    const t0 = performance.now();
    await capture();
    const ms = performance.now() - t0;
    latencies.push(ms);
    parts[Math.min(PARTS - 1, Math.floor(((t0 - started) * PARTS) / soakMs))].push(ms);
    const t1 = performance.now();
    await ping();
    floor.push(performance.now() - t1);
    const elapsed = performance.now() - started;
    const now = memory(pid).rss;
    rss.samples.push([elapsed / 1000, now]);
    rss.max = Math.max(rss.max, now);
    if (rss.middle === undefined && elapsed >= soakMs / 2) rss.middle = now;
    if (threadsAt.length < PARTS && elapsed >= (threadsAt.length * soakMs) / PARTS) threadsAt.push(threadTimes(pid));
    await sleep(CAPTURE_EVERY_MS);
  }
  rss.end = memory(pid).rss;
  threadsAt.push(threadTimes(pid));
  const machine = machineTicks();
  const used = (before, after) => {
    const threads = threadDeltas(before, after);
    return {
      cpu: threads.reduce((sum, t) => sum + t.cpu, 0),
      waited: threads.some((t) => t.waited === null) ? null : threads.reduce((sum, t) => sum + t.waited, 0),
    };
  };
  return {
    rss,
    ...used(threadsAt[0], threadsAt.at(-1)),
    thirds: threadsAt.slice(1).map((after, i) => ({ cpu: used(threadsAt[i], after).cpu, p99: percentile(parts[i], 99) })),
    machineBusy: (machine.busy - machine0.busy) / (machine.all - machine0.all),
    latencies,
    floor,
  };
}

/** The least-squares slope of [seconds, bytes] samples, in bytes a second: how RSS trends over the soak. */
function trend(samples) {
  const n = samples.length;
  const meanT = samples.reduce((sum, [t]) => sum + t, 0) / n;
  const meanR = samples.reduce((sum, [, r]) => sum + r, 0) / n;
  const covariance = samples.reduce((sum, [t, r]) => sum + (t - meanT) * (r - meanR), 0);
  const variance = samples.reduce((sum, [t]) => sum + (t - meanT) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

/** What a side measured, in a line of its own. */
const summary = ({ rss: { samples, ...rss }, cpu, thirds, waited, machineBusy, latencies, floor }) => ({
  rss,
  cpu,
  thirds,
  waited,
  machineBusy,
  p50: median(latencies),
  p99: percentile(latencies, 99),
  max: Math.max(...latencies),
  floorP99: percentile(floor, 99),
});

/**
 * Then the panes slow down (the `go`.slow file) and, once all have had time to
 * look for it, a second soak of `lightMs` measures the same under that load.
 */
async function slowDown(go, lightMs, soakOnce) {
  writeFileSync(`${go}.slow`, "");
  await sleep(2_000);
  return soakOnce(lightMs);
}

async function venomRun(panes, prefill, { soakMs, lightMs }, ping) {
  const mux = await startMux("scale-mux");
  const go = join(mux.workspace, "go");
  const client = await mux.connect();
  await sleep(1_000);
  const idle = memory(mux.pid).rss;
  const created = [];
  for (let i = 0; i < panes; i++) created.push(await mux.newPane(client, paneArgv(prefill, go)));
  const capture = async (i) => (await client.request("pane/capture", { target: created[i].id })).text;
  await untilFilled(panes, capture, "venom-mux pane");
  writeFileSync(go, "");
  await waitFor(async () => (await capture(panes - 1)).includes("line "), 600_000, "the last venom-mux pane to print its loop");
  const target = created[0].id;
  const soakOnce = (ms) => soak(mux.pid, ms, () => client.request("pane/capture", { target }), ping);
  const result = await soakOnce(soakMs);
  const light = await slowDown(go, lightMs, soakOnce);
  const { panes: listed } = await client.request("pane/list");
  const running = listed.filter((p) => p.status === "running").length;
  if (running !== panes) throw new Error(`venom-mux: ${panes - running} of ${panes} panes stopped during the soak`);
  // Its panes stop now, before tmux's start: asked on the open connection, which waits as long as
  // stopping 200 panes takes (the CLI gives up after 20 s), then until the daemon has exited.
  const stopping = performance.now();
  await client.request("daemon/stop").catch(() => undefined);
  await waitFor(() => !isAlive(mux.pid), 600_000, "venom-mux to stop");
  const stopMs = performance.now() - stopping;
  console.log(
    `   venom-mux side done (printed before tmux's, in case that fails): ${JSON.stringify({ idle, ...summary(result), light: summary(light), stopMs })}`,
  );
  return { idle, ...result, light, stopMs };
}

async function tmuxRun(panes, prefill, { soakMs, lightMs }, ping) {
  const tmux = startTmux("scale-tmux");
  tmux.tmux(
    "new-session",
    "-d",
    "-s",
    "scale",
    "-x",
    String(COLS),
    "-y",
    String(ROWS),
    "cat",
    ";",
    "set",
    "-g",
    "status",
    "off",
    ";",
    "set",
    "-g",
    "history-limit",
    String(SCROLLBACK),
  );
  const pid = Number(tmux.tmux("display", "-p", "#{pid}").trim());
  await sleep(1_000);
  const idle = memory(pid).rss;
  const go = join(tempDir("scale-go"), "go");
  for (let i = 1; i <= panes; i++) tmux.tmux("new-window", "-t", `scale:${i}`, paneCommand(prefill, go));
  tmux.tmux("kill-window", "-t", "scale:0");
  const capture = (i) => tmux.tmux("capture-pane", "-p", "-t", `scale:${i + 1}`);
  await untilFilled(panes, capture, "tmux pane");
  writeFileSync(go, "");
  await waitFor(async () => capture(panes - 1).includes("line "), 600_000, "the last tmux pane to print its loop");
  const env = cleanEnv();
  const soakOnce = (ms) =>
    soak(pid, ms, () => timeSpawn("tmux", ["-S", tmux.socket, "capture-pane", "-p", "-t", "scale:1"], { env }), ping);
  const result = await soakOnce(soakMs);
  const light = await slowDown(go, lightMs, soakOnce);
  const windows = tmux.tmux("list-windows", "-t", "scale").trim().split("\n").length;
  if (windows !== panes) throw new Error(`tmux: ${panes - windows} of ${panes} panes stopped during the soak`);
  tmux.tmux("kill-server");
  return { idle, ...result, light };
}

export async function run({ quick }) {
  const panes = quick ? 5 : 200;
  // Full: the whole history plus a screen, so the scrollback is at its limit before the soak starts.
  const prefill = quick ? 200 : SCROLLBACK + ROWS;
  const soakMs = quick ? 2_000 : 60_000;
  const lightMs = quick ? 1_000 : 20_000;
  // The scheduling floor under the same load: a bare Node server in a session of its own, asked once after each capture.
  const floor = await connect(await startFloor());
  const ping = () => floor.request("echo", { arguments: { text: "ping" } });
  const venom = await venomRun(panes, prefill, { soakMs, lightMs }, ping);
  const tmux = await tmuxRun(panes, prefill, { soakMs, lightMs }, ping);
  floor.close();

  const perPane = (r) => (r.rss.end - r.idle) / panes;
  // Flat means no sample above the start, not only the end: a heap that grows and is collected would pass on its end alone.
  const growth = (r) => Math.max(r.rss.end, r.rss.max) / r.rss.start;
  const row = (label, r, ms = soakMs) => [
    label,
    `${r.cpu.toFixed(2)} s (${((100 * r.cpu) / (ms / 1000)).toFixed(0)}% of a core)`,
    r.waited === null ? "n/a" : `${r.waited.toFixed(2)} s`,
    `${(100 * r.machineBusy).toFixed(0)}%`,
    `${fmt.mib(r.rss.start)} / ${fmt.mib(r.rss.middle ?? r.rss.end)} / ${fmt.mib(r.rss.end)} / ${fmt.mib(r.rss.max)}`,
    `${(perPane(r) / 1024).toFixed(0)} KiB`,
    `${fmt.ms(Math.min(...r.latencies))} / ${fmt.ms(median(r.latencies))} / ${fmt.ms(percentile(r.latencies, 99))} / ${fmt.ms(Math.max(...r.latencies))}`,
    `${fmt.ms(median(r.floor))} / ${fmt.ms(percentile(r.floor, 99))}`,
  ];
  // The fitted trend as a change over the whole soak, a fraction of the start: flat is near 0.
  const fitted = (r) => (trend(r.rss.samples) * (soakMs / 1000)) / r.rss.start;
  const signed = (v, f) => `${v < 0 ? "−" : "+"}${f(Math.abs(v))}`;
  const percent = (v) => signed(v, (a) => `${(100 * a).toFixed(2)}%`);
  const p99 = percentile(venom.latencies, 99);
  const venomGrowth = growth(venom);
  const sides = [
    ["venom-mux", venom],
    ["tmux", tmux],
  ];
  return {
    title,
    setup: `${panes} panes (80x24), each running \`${paneCommand(prefill, "GO")}\`: ${prefill} lines first (scrollback ${SCROLLBACK} lines in both; tmux's history-limit set to it), then, once every pane has filled and the go file is made, a line every 10 ms; the soak (${soakMs / 1000} s) starts once the last pane prints its loop. venom-mux first, stopped, then one tmux server (panes as windows, no client attached). During the soak one pane is captured every ${CAPTURE_EVERY_MS} ms: venom through a connected protocol client (\`pane/capture\`, what \`venom-mux capture\` sends), tmux by spawning \`tmux capture-pane -p\` (its client). CPU: utime+stime of the daemon's threads over the soak, from /proc/PID/task/TID/stat; waiting for a CPU: the time they were ready to run and not running (run_delay, /proc/PID/task/TID/schedstat); machine busy: all CPUs, from /proc/stat. Each third of the soak is measured on its own too, as a repeat of the same load (CPU time and capture p99, min / median / max over the thirds); the RSS trend is a least-squares line through the samples taken after each capture. Then the panes slow to a line every ${SLOW_MS} ms (each looks for a \`go\`.slow file every 50 lines) and, 2 s after that file is made, a second soak of ${lightMs / 1000} s measures the same under that lighter load (the rows "then a line every ${SLOW_MS} ms"). Stopping: from \`daemon/stop\` until the daemon has exited, a zombie counting as exited. Per pane = (RSS at the end − RSS before any busy pane) ÷ ${panes}.`,
    columns: [
      "daemon",
      "CPU time over the soak",
      "waiting for a CPU over the soak (all threads)",
      "machine busy over the soak",
      "RSS start / middle / end / highest",
      "RSS per pane",
      "capture latency min / median / p99 / max",
      "the floor under the same load: a bare Node server's round trip, median / p99",
    ],
    rows: [
      row("venom-mux", venom),
      row("tmux", tmux),
      ...sides.map(([name, r]) => row(`${name}, then a line every ${SLOW_MS} ms`, { ...r.light, idle: r.idle }, lightMs)),
    ],
    ratios: [
      ["venom / tmux daemon CPU time", fmt.ratio(venom.cpu / tmux.cpu)],
      ["venom / tmux RSS per pane", fmt.ratio(perPane(venom) / perPane(tmux))],
      ["venom RSS highest / start of the soak", fmt.ratio(venomGrowth)],
      ["tmux RSS highest / start of the soak", fmt.ratio(growth(tmux))],
      ...sides.map(([name, r]) => [
        `${name}: RSS trend over the soak (least-squares fit of its ${r.rss.samples.length} samples)`,
        `${signed((trend(r.rss.samples) * 60) / MiB, (a) => `${a.toFixed(2)} MiB`)} a minute, ${percent(fitted(r))} of the start over the soak`,
      ]),
      ...sides.map(([name, r]) => [
        `${name}: waiting for a CPU / CPU time over the soak`,
        r.waited === null ? "n/a" : fmt.ratio(r.waited / r.cpu),
      ]),
      ...sides.map(([name, r]) => [
        `${name}: CPU time in each third of the soak (min / median / max)`,
        spread(
          r.thirds.map((t) => t.cpu),
          (v) => `${v.toFixed(2)} s`,
        ),
      ]),
      ...sides.map(([name, r]) => [
        `${name}: capture p99 in each third of the soak (min / median / max)`,
        spread(
          r.thirds.map((t) => t.p99),
          fmt.ms,
        ),
      ]),
      ["venom-mux: stopping the daemon with its busy panes took", fmt.ms(venom.stopMs)],
      ...sides.map(([name, r]) => [
        `${name} soak: capture p99 / the floor's p99 under the same load`,
        fmt.ratio(percentile(r.latencies, 99) / percentile(r.floor, 99)),
      ]),
      [
        "venom / tmux capture p99 (a request on an open connection against a spawned tmux client)",
        fmt.ratio(p99 / percentile(tmux.latencies, 99)),
      ],
      [
        `venom / tmux capture p99, then a line every ${SLOW_MS} ms`,
        fmt.ratio(percentile(venom.light.latencies, 99) / percentile(tmux.light.latencies, 99)),
      ],
    ],
    notes: `The memory target is tmux's RSS per pane plus the screen model's documented cost: 12 bytes a cell plus 600 a line (xterm keeps each line as an object with a typed array, the array's buffer and two maps), ${fmt.mib(MODEL_BYTES)} for an 80x24 screen with ${SCROLLBACK} lines of scrollback, as docs/venom-mux.md ("Bounds") and the screen budget (\`mux.max_screen_memory_mb\`) count it. Less would take a scrollback of venom-mux's own, keeping lines compactly once they leave the screen, instead of xterm's. RSS stays flat because the screen worker makes no garbage that lives long per line: a recycled scrollback line keeps its own empty maps (apps/multiplexer-lite/src/daemon/line-maps.ts; xterm gave it two new ones each time), and the worker's line of models waiting for a turn is an array, not a Set (the Set's rehashed tables went straight to the old generation). Before both, the worker's heap grew ~2.5–4.5 MB/s under this load and fell back only at a collection of the whole heap, some 10% of RSS up and down. A capture waits only for its own pane's output: the screen worker parses the asked pane's output ahead of every other pane's backlog (test/screen-backlog.test.ts). The panes print with perl: the shell loop this bench used before (\`echo; read -t 0.01\` in bash) took some 70% of both cores by itself, and the daemons, starved among 200 busy sessions, answered captures in seconds (venom-mux's p99 17 s, tmux's 13 s). Waiting for a CPU: every pane is a session of its own (as in tmux, for job control), and where the kernel schedules by autogroup (${AUTOGROUP}) each session is a scheduling group with the same weight as the daemon's. While 200 sessions print, the daemon, which needs more CPU than any one of them, waits behind them for its turn: where that wait is several times the CPU time it got and the machine is near 100% busy, a capture's latency is mostly that queue. tmux's daemon, one thread, stands in the same queue; venom-mux's two busy threads (the main thread and the screen worker) share one group's weight, and its column sums the wait of all its threads. An unprivileged daemon cannot raise its own group's weight (a negative autogroup nice needs CAP_SYS_NICE). The floor column shows what a light server gets under the same load: a bare Node server (the RPC step's) in a session of its own, asked once after each capture, answers with a p99 a fraction of the daemons' (13 ms against venom-mux's 192 ms in a trial run), so the machine itself can answer within 50 ms under this load: what waits is a daemon with work queued all the time. The rows "then a line every ${SLOW_MS} ms" are the same panes at a tenth of that rate: how a capture fares when the panes print less (the machine-busy column says how loaded the machine then was). Where a capture's time goes (a trial build with a timestamp at each hop, 200 panes, a 20 s soak, ~160 captures, two runs): the main thread taking up the request, p99 137–157 ms; the worker's answer taken up by the main thread, 75–95 ms; the worker taking up the request, 21–55 ms; parsing the pane's own output and writing the capture, 3–48 ms. A request used to wait for the end of the main thread's turn before it went to the worker (p99 38 ms); it goes at once now (p99 6 ms; apps/multiplexer-lite/src/daemon/screen-model.ts). Over those soaks the main thread used 32% of a core and waited for one 54% of the time, the worker 26% and 45%. A CPU profile of the soak (the profile of a 15 s soak subtracted from a 60 s one's, under the profiler) puts the main thread's time in its 20,000 pty reads a second: node's stream machinery and node-pty's handler ~29%, V8 and native code ~21%, the pane's flush ~14%, postMessage to the worker ~11%, garbage collection 6%; and the worker's in xterm's parsing (print, scroll, recycled lines: ~50%), its own queueing (~22%) and garbage collection (5%). Halving the daemon's CPU did not bring that tail down: a trial build that read a busy pane at most every 50 ms (its pty paused after each small read, 5 lines a read instead of 1) used 42% less CPU on the main thread and 49% less in the worker, and its capture p99 was 168 ms against 175–196 ms (p50 4 against 6 ms). A daemon that has work queued all the time has used more than its share of a CPU whenever a request comes, and the scheduler makes it wait behind the sessions that have not; the floor server sleeps between its requests. That trial is not built: it delays a busy pane's output by up to 50 ms for every viewer and capture. Two more trials, not built either (this machine, 200 panes as here, soaks of 20–30 s): a lower weight for the panes' scheduling groups (a nice value written to /proc/PID/autogroup, which needs no privilege) brought the capture median from 30–60 ms to 5–12 ms at nice 19, but not the tail, p99 98–158 ms in four soaks (nice 5 and 10 changed little). What remains comes about every 0.65 s: each time the screen worker, whose heap holds ~730 MB (200 scrollbacks of 10,000 lines as xterm's objects), collects its young generation, 10–50 ms of pause (\`--trace-gc\`) that a capture behind it waits out, longer while the worker waits for a CPU. A 64 MB young generation for the worker (its resourceLimits) made those collections rarer and longer, with the same p99. A lower priority for the panes would also make every agent yield to the rest of the machine, which a tmux user does not expect; a compact scrollback of venom-mux's own (see the memory target) is what would shrink that heap. Stopping: each pane's group is signalled and polled until empty, and every poll (one tick shared by all the waits, packages/runtime/src/proc.ts waitUntil) checks its group against one scan of /proc; with a timer per pane, each poll scanned /proc again. In a separate test on this machine (200 panes, each printing 10024 lines and then a line every 10 ms, stopped after 15 s, two runs of each build), \`venom-mux stop\` returned after 0.9–1.1 s against 1.6–1.7 s with a timer per pane. Until this build the step counted the daemon as running while it was a zombie (kill(pid, 0) succeeds on one): a detached daemon's parent is the machine's init, which on these machines reaps it a second or two after it exits (an idle venom-echo daemon: a zombie ~170 ms after \`stop\`, gone after 1.4–1.9 s), and that wait made this figure 3.7–4.5 s in earlier runs; with 5 panes (--quick) it went from 1.2 s to 0.15 s.`,
    targets: [
      {
        target: "venom-mux RSS flat over the soak (every sample within 1.05× the start, the fitted trend within ±5% of it over the soak)",
        measured: `${fmt.ratio(venomGrowth)}; trend ${percent(fitted(venom))}`,
        // --quick fills a fraction of the scrollback, so the screens still grow during its soak.
        met: quick ? null : venomGrowth <= 1.05 && Math.abs(fitted(venom)) <= 0.05,
      },
      {
        target: "capture of one pane under load: p99 within 50 ms",
        measured: `${fmt.ms(p99)} (each third of the soak: ${spread(
          venom.thirds.map((t) => t.p99),
          fmt.ms,
        )}; a bare Node server's p99 under the same load: ${fmt.ms(percentile(venom.floor, 99))})`,
        met: p99 <= 50,
      },
      {
        target: "RSS per busy pane within tmux's plus the screen model's documented cost",
        measured: `${(perPane(venom) / 1024).toFixed(0)} KiB against ${(perPane(tmux) / 1024).toFixed(0)} + ${(MODEL_BYTES / 1024).toFixed(0)} KiB (${fmt.ratio(perPane(venom) / perPane(tmux))} tmux's)`,
        met: quick ? null : perPane(venom) <= perPane(tmux) + MODEL_BYTES,
      },
    ],
    data: { panes, prefill, soakMs, venom, tmux },
  };
}
