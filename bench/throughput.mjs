// 1. Throughput: `cat` of a big file in a pane until an attached client has it,
// through venom-mux (a protocol client attached with pane/attach), against raw
// node-pty and against tmux with a client attached in a pty.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fmt, MB, MiB, markerWatch, settle, spawnPty, startMux, startTmux, tempDir, threadDeltas, threadTimes, within } from "./lib.mjs";

export const title = "Throughput: cat of a file until an attached client has it";

const MARKER = "VENOM-BENCH-END";

/** A file of `bytes` bytes of 80-column ASCII lines. */
function writeFile(path, bytes) {
  let text = "";
  const words = "the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRST";
  for (let i = 0; text.length < MiB; i++) text += `${String(i).padStart(6, "0")} ${words}\n`;
  const chunk = Buffer.from(text.slice(0, MiB));
  const fd = openSync(path, "w");
  try {
    for (let left = bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
  } finally {
    closeSync(fd);
  }
}

/**
 * The pane program: wait for Enter (so timing starts when the client is
 * attached and ready), cat, print the end marker (never spelled out in the
 * command line itself), then wait so the last screen stays up.
 */
const command = (file) => `read _; cat '${file}'; printf 'VENOM-BENCH-%s\\n' END; read _`;

/** A thread's CPU time and its wait for a CPU (from threadDeltas), in words. */
function describeThread(label, t) {
  if (!t) return `${label}: not found`;
  return `${label} used ${t.cpu.toFixed(2)} s of CPU${t.waited === null ? "" : ` and waited ${t.waited.toFixed(2)} s for one`}`;
}

export async function run({ quick }) {
  const size = quick ? 8 * MiB : 256 * MiB;
  const reps = quick ? 1 : 3;
  // Generous: a run slower than 1 MB/s is reported as a failure to run, not measured for ever.
  const timeoutMs = 30_000 + (size / MB) * 1000;
  const file = join(tempDir("throughput"), "data.txt");
  writeFile(file, size);
  const argv = ["sh", "-c", command(file)];

  const mux = await startMux("throughput-mux");
  let current = null;
  let redraws = 0;
  let messages = 0;
  const watchers = {};
  const client = await mux.connect((method, params) => {
    if (params?.attachment !== current) return;
    if (method === "pane/output") {
      messages++;
      watchers.venom?.push(params.data);
    }
    if (method === "pane/redraw") {
      redraws++;
      watchers.venom?.push(params.screen);
    }
  });
  const tmux = startTmux("throughput-tmux");

  const systems = {
    /** node-pty in this process, counting onData. */
    raw: async () => {
      const term = spawnPty(argv[0], argv.slice(1));
      const watch = markerWatch(MARKER);
      await settle(term);
      term.onData((data) => watch.push(data));
      const start = performance.now();
      term.write("\r");
      const bytes = await within(watch.done, timeoutMs, "raw node-pty cat");
      const seconds = (performance.now() - start) / 1000;
      term.kill("SIGKILL");
      return { seconds, bytes };
    },
    /** A client of the daemon attached to the pane, counting pane/output (and pane/redraw) text. */
    venom: async () => {
      const pane = await mux.newPane(client, argv);
      const watch = markerWatch(MARKER);
      const before = { redraws, messages };
      const { attachment } = await client.request("pane/attach", { target: pane.id, cols: 80, rows: 24 });
      current = attachment;
      await new Promise((resolve) => setTimeout(resolve, 300));
      watchers.venom = watch;
      const threads0 = threadTimes(mux.pid);
      const start = performance.now();
      await client.request("pane/send", { target: pane.id, data: "\r" });
      const bytes = await within(watch.done, timeoutMs, "venom-mux cat");
      const seconds = (performance.now() - start) / 1000;
      const threads = threadDeltas(threads0, threadTimes(mux.pid));
      watchers.venom = undefined;
      await client.request("pane/detach", { attachment });
      await client.request("pane/kill", { target: pane.id });
      // The main thread (its id is the pid) reads the pty and feeds the client; the busiest other is the screen worker.
      const main = threads.find((t) => t.tid === mux.pid);
      const worker = threads.find((t) => t.tid !== mux.pid);
      return { seconds, bytes, redraws: redraws - before.redraws, messages: messages - before.messages, main, worker };
    },
    /** `tmux attach` in a pty, counting what the tmux client writes to its terminal. */
    tmux: async (rep) => {
      const session = `cat${rep}`;
      tmux.newSession(session, command(file));
      const term = tmux.attach(session);
      const watch = markerWatch(MARKER);
      await settle(term);
      term.onData((data) => watch.push(data));
      const start = performance.now();
      term.write("\r");
      const bytes = await within(watch.done, timeoutMs, "tmux cat");
      const seconds = (performance.now() - start) / 1000;
      tmux.tmux("kill-session", "-t", session);
      return { seconds, bytes };
    },
  };

  // Interleaved repetitions: noise on a shared machine hits every system alike.
  const runs = { raw: [], tmux: [], venom: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (const [name, measure] of Object.entries(systems)) runs[name].push(await measure(rep));
  }

  const summary = {};
  for (const [name, list] of Object.entries(runs)) {
    const mid = [...list].sort((a, b) => a.seconds - b.seconds)[Math.floor(list.length / 2)];
    summary[name] = { ...mid, mbps: size / MB / mid.seconds, all: list.map((r) => r.seconds) };
  }
  const venomVsRaw = summary.venom.mbps / summary.raw.mbps;
  const venomVsTmux = summary.venom.mbps / summary.tmux.mbps;
  return {
    title,
    setup: `a ${fmt.mib(size)} file of 80-column ASCII lines; pane program \`sh -c "read _; cat FILE; printf END-MARKER; read _"\` in an 80x24 pty; the clock starts when Enter is sent and stops when the attached client sees the end marker; median of ${reps} interleaved run(s).`,
    columns: ["system", "MB/s", "seconds (each run)", "bytes at client", "note"],
    rows: ["raw", "tmux", "venom"].map((name) => [
      { raw: "raw node-pty (onData)", tmux: "tmux 80x24 + attached client", venom: "venom-mux + attached VenomClient" }[name],
      fmt.mbps(summary[name].mbps),
      summary[name].all.map((s) => s.toFixed(2)).join(", "),
      fmt.mib(summary[name].bytes),
      {
        raw: "every byte (the tty adds \\r to each line)",
        tmux: "tmux draws from its own screen model and skips ahead for a busy client",
        venom: `every byte, in ${summary.venom.messages} pane/output messages (${(summary.venom.bytes / summary.venom.messages / 1024).toFixed(1)} KiB each); ${summary.venom.redraws} redraw(s)`,
      }[name],
    ]),
    notes: `Where venom-mux's time goes, in its median run (${summary.venom.seconds.toFixed(2)} s): ${describeThread("the daemon's main thread (reads the pty, sends pane/output)", summary.venom.main)}; ${describeThread("its busiest other thread (the screen worker, which parses every byte into the screen model)", summary.venom.worker)}. Both threads are one scheduling group (autogroup, where the kernel has it), as each pane's session and this bench's process are groups of their own; time spent waiting for a CPU is time the machine gave to others.`,
    ratios: [
      ["venom / raw throughput", fmt.ratio(venomVsRaw)],
      ["venom / tmux throughput", fmt.ratio(venomVsTmux)],
    ],
    targets: [
      { target: "pane throughput at least tmux's (venom/tmux ≥ 1)", measured: fmt.ratio(venomVsTmux), met: venomVsTmux >= 1 },
      {
        target: "stretch: within 1.5× raw node-pty (venom/raw ≥ 0.67)",
        measured: fmt.ratio(venomVsRaw),
        met: venomVsRaw >= 1 / 1.5,
      },
    ],
    data: { size, reps, runs },
  };
}
