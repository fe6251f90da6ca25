// 2. Keystroke round trip: one byte typed into a pane running `cat` until its
// echo (by the tty) is back at the typist: through venom-mux (pane/send, then
// pane/output on the same attached connection), a raw node-pty, and a tmux
// client attached in a pty.
import { fmt, median, percentile, settle, spawnPty, spread, startMux, startTmux, within } from "./lib.mjs";

export const title = "Keystroke round trip: one byte to a pane running cat, until the echo is back";

const KEY = "x";
const WARMUP = 20;

/** A system we can type into: `send(byte)`, and `output` calls the current waiter. */
function typist(send) {
  const t = {
    waiter: null,
    send,
    output(data) {
      t.waiter?.(data);
    },
  };
  return t;
}

function roundTrip(t) {
  return within(
    new Promise((resolve, reject) => {
      const start = performance.now();
      t.waiter = (data) => {
        if (!data.includes(KEY)) return;
        t.waiter = null;
        resolve(performance.now() - start);
      };
      Promise.resolve(t.send(KEY)).catch(reject);
    }),
    5_000,
    "a keystroke's echo",
  );
}

/** p50, p99 and max of one round's times. */
const summarize = (list) => ({ p50: percentile(list, 50), p99: percentile(list, 99), max: Math.max(...list) });
const signed = (ms) => `${ms >= 0 ? "+" : ""}${fmt.ms(ms)}`;

export async function run({ quick }) {
  // A p99 of one set moved by more than a millisecond between runs on this machine: rounds, and their spread.
  const rounds = quick ? 2 : 5;
  const n = quick ? 25 : 200;

  const rawPty = spawnPty("cat", []);
  const raw = typist((data) => rawPty.write(data));
  await settle(rawPty);
  rawPty.onData((data) => raw.output(data));

  const mux = await startMux("keystroke-mux");
  let attachment;
  let venom;
  const client = await mux.connect((method, params) => {
    if (method === "pane/output" && params.attachment === attachment) venom.output(params.data);
  });
  const pane = await mux.newPane(client, ["cat"]);
  venom = typist((data) => client.request("pane/send", { target: pane.id, data }));
  ({ attachment } = await client.request("pane/attach", { target: pane.id, cols: 80, rows: 24 }));

  const tmux = startTmux("keystroke-tmux");
  tmux.newSession("keys", "cat");
  const tmuxPty = tmux.attach("keys");
  const viaTmux = typist((data) => tmuxPty.write(data));
  await settle(tmuxPty);
  tmuxPty.onData((data) => viaTmux.output(data));

  // Interleaved, one keystroke each in turn: noise on a shared machine hits every system alike.
  const systems = { raw, tmux: viaTmux, venom };
  const names = Object.keys(systems);
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const these = Object.fromEntries(names.map((name) => [name, []]));
    for (let i = 0; i < (round === 0 ? WARMUP : 0) + n; i++) {
      for (const name of names) {
        const ms = await roundTrip(systems[name]);
        if (round > 0 || i >= WARMUP) these[name].push(ms);
      }
    }
    times.push(these);
  }

  /** Per round, then min / median / max over the rounds. */
  const stats = times.map((round) => Object.fromEntries(names.map((name) => [name, summarize(round[name])])));
  const each = (f) => stats.map(f);
  const row = (label, name) => [
    label,
    spread(
      each((s) => s[name].p50),
      fmt.ms,
    ),
    spread(
      each((s) => s[name].p99),
      fmt.ms,
    ),
    fmt.ms(Math.max(...each((s) => s[name].max))),
    name === "raw"
      ? ""
      : spread(
          each((s) => s[name].p50 - s.raw.p50),
          signed,
        ),
    name === "raw"
      ? ""
      : spread(
          each((s) => s[name].p99 - s.raw.p99),
          signed,
        ),
  ];
  const venomP99 = median(each((s) => s.venom.p99 - s.raw.p99));
  return {
    title,
    setup: `each pane runs \`cat\` in an 80x24 pty (cooked mode: the tty echoes); one byte "${KEY}" is typed and the clock stops when it is back at the typist: raw = node-pty write → onData; tmux = written to the pty of \`tmux attach\` → that client's output; venom = pane/send → pane/output on the attached VenomClient's connection. ${rounds} rounds of ${n} keystrokes per system (after ${WARMUP} warm-up), interleaved one keystroke each in turn; each figure is taken per round, then shown as min / median / max over the rounds.`,
    columns: ["system", "p50 min / median / max", "p99 min / median / max", "max", "p50 − raw, per round", "p99 − raw, per round"],
    rows: [row("raw node-pty", "raw"), row("tmux + attached client", "tmux"), row("venom-mux + attached VenomClient", "venom")],
    ratios: [
      ["venom p50 / raw p50 (medians over the rounds)", fmt.ratio(median(each((s) => s.venom.p50)) / median(each((s) => s.raw.p50)))],
      ["venom p99 / tmux p99 (medians over the rounds)", fmt.ratio(median(each((s) => s.venom.p99)) / median(each((s) => s.tmux.p99)))],
    ],
    targets: [
      {
        target: "keystroke round trip p99 within 1 ms of a raw pty",
        measured: `${signed(venomP99)} (p99, median of ${rounds} rounds)`,
        met: venomP99 <= 1,
      },
    ],
    data: { rounds, n, times },
  };
}
