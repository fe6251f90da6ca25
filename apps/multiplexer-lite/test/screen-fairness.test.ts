import { connect } from "@venom/testkit";
import { describe, expect, it } from "vitest";
import { endedAfterEach } from "./started.js";

const started = endedAfterEach();

/** The highest number `seq` has shown on a captured screen. */
const lastNumber = (text: string) => Math.max(0, ...text.split("\n").map((line) => Number(line.trim()) || 0));

describe("venom-mux: one pane's work in the screen worker never stalls the others", () => {
  it("while one pane floods (endless output, a burst of resizes and full-history captures), another pane's input shows and its capture answers", async () => {
    // A full scrollback: every capture of the whole history, and every reflow, is real work in the worker.
    const mux = await started.mux({ config: "[mux]\nscrollback_lines = 50000\n" });
    const flood = await mux.client.request("pane/new", { argv: ["seq", "1", "inf"], cols: 200, rows: 40, name: "flood" });
    const quiet = await mux.client.request("pane/new", { argv: ["cat"], name: "quiet" });
    await expect
      .poll(async () => lastNumber((await mux.client.request("pane/capture", { target: flood.id })).text), { timeout: 60_000 })
      .toBeGreaterThan(60_000);
    const before = lastNumber((await mux.client.request("pane/capture", { target: flood.id })).text);

    // Each resize is answered at once; a burst of them costs the worker one reflow.
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => mux.client.request("pane/resize", { target: flood.id, cols: i % 2 ? 120 : 200, rows: 40 })),
    );
    // A backlog of work on the flooding pane's queue: captures of its whole history, each answered in turn (waited for as long as it takes).
    const asker = await connect(mux, { requestTimeoutMs: 0 });
    const CAPTURES = 100;
    let floodCaptured = 0;
    const floodCaptures = Array.from({ length: CAPTURES }, () =>
      asker.request("pane/capture", { target: flood.id, start: -50_000 }).then((reply) => {
        floodCaptured++;
        return reply;
      }),
    );

    // Meanwhile, on another connection, text typed into the quiet pane goes through its pty and its screen model.
    const other = await connect(mux);
    await other.request("pane/send", { target: quiet.id, data: "typed during the flood\r" });
    await expect
      .poll(async () => (await other.request("pane/capture", { target: quiet.id })).text, { timeout: 60_000, interval: 10 })
      .toMatch(/typed during the flood\ntyped during the flood/);
    // Ordering, not timing: the quiet pane was served while the flooding pane's earlier requests still waited on its backlog.
    expect(floodCaptured, "every capture of the flooding pane, all asked first, was answered before the quiet pane's").toBeLessThan(
      CAPTURES,
    );

    // The flood went on meanwhile: its captures all answer, at the last size asked for, further along than before.
    const last = (await Promise.all(floodCaptures)).at(-1)?.text ?? "";
    expect(lastNumber(last)).toBeGreaterThan(before);
    const panes = (await other.request("pane/list", {})).panes as { id: string; status: string; cols: number }[];
    expect(panes.find((p) => p.id === flood.id)).toMatchObject({ status: "running", cols: 120 });
    other.close();
    asker.close();
  });
});
