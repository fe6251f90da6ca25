// 2. Keystroke round trip: one byte typed into a pane running `cat` until its
// echo (by the tty) is back at the typist: through venom-mux (pane/send, then
// pane/output on the same attached connection), a raw node-pty, and a tmux
// client attached in a pty.
import { fmt, percentile, settle, spawnPty, startMux, startTmux, within } from "./lib.mjs";

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

export async function run({ quick }) {
  const n = quick ? 50 : 500;

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
  const times = { raw: [], tmux: [], venom: [] };
  for (let i = 0; i < WARMUP + n; i++) {
    for (const [name, t] of Object.entries(systems)) {
      const ms = await roundTrip(t);
      if (i >= WARMUP) times[name].push(ms);
    }
  }

  const stats = Object.fromEntries(
    Object.entries(times).map(([name, list]) => [name, { p50: percentile(list, 50), p99: percentile(list, 99), max: Math.max(...list) }]),
  );
  const diff = (name, p) => `${stats[name][p] - stats.raw[p] >= 0 ? "+" : ""}${fmt.ms(stats[name][p] - stats.raw[p])}`;
  const venomP99 = stats.venom.p99 - stats.raw.p99;
  return {
    title,
    setup: `each pane runs \`cat\` in an 80x24 pty (cooked mode: the tty echoes); one byte "${KEY}" is typed and the clock stops when it is back at the typist: raw = node-pty write → onData; tmux = written to the pty of \`tmux attach\` → that client's output; venom = pane/send → pane/output on the attached VenomClient's connection. ${n} keystrokes per system (after ${WARMUP} warm-up), interleaved.`,
    columns: ["system", "p50", "p99", "max", "p50 − raw", "p99 − raw"],
    rows: [
      ["raw node-pty", fmt.ms(stats.raw.p50), fmt.ms(stats.raw.p99), fmt.ms(stats.raw.max), "", ""],
      [
        "tmux + attached client",
        fmt.ms(stats.tmux.p50),
        fmt.ms(stats.tmux.p99),
        fmt.ms(stats.tmux.max),
        diff("tmux", "p50"),
        diff("tmux", "p99"),
      ],
      [
        "venom-mux + attached VenomClient",
        fmt.ms(stats.venom.p50),
        fmt.ms(stats.venom.p99),
        fmt.ms(stats.venom.max),
        diff("venom", "p50"),
        diff("venom", "p99"),
      ],
    ],
    ratios: [
      ["venom p50 / raw p50", fmt.ratio(stats.venom.p50 / stats.raw.p50)],
      ["venom p99 / tmux p99", fmt.ratio(stats.venom.p99 / stats.tmux.p99)],
    ],
    targets: [
      { target: "keystroke round trip p99 within 1 ms of a raw pty", measured: `${diff("venom", "p99")} (p99)`, met: venomP99 <= 1 },
    ],
    data: { n, times },
  };
}
