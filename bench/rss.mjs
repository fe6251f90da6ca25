// 4. Daemon memory per pane: VmRSS of the venom-mux daemon with no pane, then
// with many panes that keep printing, per pane.
import { existsSync } from "node:fs";
import { fmt, memory, sleep, startMux } from "./lib.mjs";

export const title = "Daemon RSS per busy pane";

/** Prints a line every 50 ms without forking (`read -t` on the idle pty times out instead of `sleep`). */
const BUSY = existsSync("/bin/bash")
  ? ["bash", "-c", 'while :; do echo "line $RANDOM $RANDOM"; read -t 0.05; done']
  : ["sh", "-c", "while :; do echo line $$; sleep 0.05; done"];

export async function run({ quick }) {
  const panes = quick ? 10 : 200;
  const busyMs = quick ? 2_000 : 5_000;
  const mux = await startMux("rss-mux");
  const client = await mux.connect();
  await sleep(1_000);
  const idle = memory(mux.pid);

  const created = [];
  for (let i = 0; i < panes; i++) created.push(await mux.newPane(client, BUSY));
  await sleep(busyMs);
  const busy = memory(mux.pid);

  // Proof the panes are busy, not merely open: the last one printed lines, and all still run.
  const last = created[created.length - 1];
  const { text } = await client.request("pane/capture", { target: last.id });
  const { panes: listed } = await client.request("pane/list");
  const running = listed.filter((p) => p.status === "running").length;
  if (!text.includes("line ")) throw new Error(`pane ${last.id} printed nothing in ${busyMs} ms`);
  if (running !== panes) throw new Error(`${panes - running} of ${panes} panes are not running`);

  const perPane = (busy.rss - idle.rss) / panes;
  return {
    title,
    setup: `a fresh daemon; VmRSS from /proc/PID/status (pid from \`venom-mux status --json\`) after 1 s with no pane, then after ${panes} panes running \`${BUSY.join(" ")}\` (a line every 50 ms each; 80x24, default scrollback) have printed for ${busyMs / 1000} s. Per pane = (RSS with panes − RSS with none) ÷ ${panes}.`,
    columns: ["state", "VmRSS", "VmHWM (peak)"],
    rows: [
      ["no pane", fmt.mib(idle.rss), fmt.mib(idle.hwm)],
      [`${panes} busy panes`, fmt.mib(busy.rss), fmt.mib(busy.hwm)],
    ],
    ratios: [["RSS per pane", `${(perPane / 1024).toFixed(0)} KiB (${fmt.mib(perPane)})`]],
    notes: `After ${busyMs / 1000} s each pane has printed about ${Math.round(busyMs / 50)} lines, so scrollback (10,000 lines by default) is far from full: this is the cost of a pane, not of a full scrollback.`,
    targets: [{ target: "daemon RSS per busy pane (the issue sets no number)", measured: `${(perPane / 1024).toFixed(0)} KiB`, met: null }],
    data: { panes, busyMs, idle, busy, perPane },
  };
}
