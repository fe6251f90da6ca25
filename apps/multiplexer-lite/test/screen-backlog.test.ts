import { afterEach, describe, expect, it } from "vitest";
// The built module: its screen worker is a thread started from the bundled screen-worker.cjs beside it.
import { ScreenModel } from "../dist/daemon/screen-model.js";

const opened: ScreenModel[] = [];
afterEach(() => {
  for (const model of opened.splice(0)) model.close();
});

/** A model of an 80x24 pane; `paused(lagging)` hears its backpressure (the pane's program paused, then resumed). */
function model(paused: (lagging: boolean) => void = () => {}): ScreenModel {
  const created = new ScreenModel({ cols: 80, rows: 24, scrollback: 1000 }, paused, () => {});
  opened.push(created);
  return created;
}

/** `bytes` of numbered lines, written the way a pane passes its output on: in pieces of at most 64 KiB. */
function writeLines(target: ScreenModel, label: string, bytes: number): void {
  let piece = "";
  for (let n = 0, written = 0; written < bytes; n++) {
    const line = `${label} line ${n}\r\n`;
    piece += line;
    written += line.length;
    if (piece.length >= 64 * 1024) {
      target.write(piece);
      piece = "";
    }
  }
  if (piece) target.write(piece);
}

describe("venom-mux: a pane's screen is parsed ahead of other panes' backlogs when it is asked for", () => {
  it("captures of a quiet pane and of a pane with output waiting are answered, with all of it, while the others' backlogs are still unparsed", async () => {
    // Eight busy panes, each 2 MiB of output behind: past the high-water mark, so each is paused, and
    // resumed only once its own output and everyone's together have been parsed (the low marks).
    const resumed: number[] = [];
    const others = Array.from({ length: 8 }, (_, i) =>
      model((lagging) => {
        if (!lagging) resumed.push(i);
      }),
    );
    for (const [i, other] of others.entries()) {
      writeLines(other, `other ${i}`, 2 * 1024 * 1024);
      other.write(`other ${i} done\r\n`);
    }
    // A busy pane asked for after them, with more output waiting than any of them, and a quiet one.
    const busy = model();
    writeLines(busy, "busy", 4 * 1024 * 1024);
    busy.write("the busy pane's last line\r\n");
    const quiet = model();
    quiet.write("a prompt$ ");

    const [busyScreen, quietScreen] = await Promise.all([busy.capture({}), quiet.capture({})]);
    // Everything written before each request is in its answer (what makes send → capture reliable)…
    expect(busyScreen).toMatch(/busy line \d+\nthe busy pane's last line\n/);
    expect(quietScreen.split("\n")[0]).toBe("a prompt$");
    // …and both were answered before the others' output had been parsed: none of them has been resumed yet.
    expect(resumed, "no other pane had caught up when the two captures were answered").toEqual([]);

    // The others are not starved: each is parsed to its end, and every paused pane is resumed.
    const screens = await Promise.all(others.map((other) => other.capture({})));
    for (const [i, text] of screens.entries()) expect(text).toContain(`other ${i} done`);
    await expect.poll(() => resumed.length, { timeout: 30_000 }).toBe(others.length);
  });
});

describe("venom-mux: the output waiting to be parsed is bounded for all panes together", () => {
  it("past 4 MiB unparsed in all, a pane with more than a little of it is paused; a pane with a prompt's worth is not; all resume once parsed", async () => {
    // Seven busy panes, 768 KiB behind each: under a pane's own high-water mark (1 MiB), over 4 MiB together.
    const paused = new Set<string>();
    const resumed = new Set<string>();
    const watched = (name: string) =>
      model((lagging) => {
        if (lagging) paused.add(name);
        else resumed.add(name);
      });
    const busy = Array.from({ length: 7 }, (_, i) => watched(`busy ${i}`));
    for (const [i, pane] of busy.entries()) writeLines(pane, `busy ${i}`, 768 * 1024);
    const quiet = watched("quiet");
    quiet.write("a prompt$ ");

    // Nothing has been parsed within this turn: the first five (3.75 MiB) went under the total's mark, the
    // sixth crossed it and the seventh wrote past it, so those two are paused; the quiet pane is not.
    expect([...paused].sort()).toEqual(["busy 5", "busy 6"]);
    // Once the worker has parsed their output, both are resumed, and every pane's screen has all of its own.
    const screens = await Promise.all(busy.map((pane) => pane.capture({})));
    for (const [i, text] of screens.entries()) expect(text).toMatch(new RegExp(`busy ${i} line \\d+\\n`));
    await expect.poll(() => [...resumed].sort(), { timeout: 30_000 }).toEqual(["busy 5", "busy 6"]);
    expect((await quiet.capture({})).split("\n")[0]).toBe("a prompt$");
  });

  it("a pane's title and cursor are answered from what is parsed so far, without waiting for its backlog; a capture waits for it", async () => {
    const busy = model();
    busy.write("\u001b]2;before the flood\u0007");
    writeLines(busy, "busy", 8 * 1024 * 1024);
    busy.write("\u001b]2;after the flood\u0007");
    // Asked in the turn that wrote it all: none of the 8 MiB is parsed yet, and the answer does not wait for it
    // (ls and an attached client's status line list every pane this way).
    expect((await busy.state()).title).not.toBe("after the flood");
    expect(await busy.capture({})).toMatch(/busy line \d+\n/);
    expect((await busy.state()).title).toBe("after the flood");
  });
});
