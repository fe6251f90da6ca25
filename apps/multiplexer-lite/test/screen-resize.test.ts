import { afterEach, describe, expect, it } from "vitest";
// The built module: its screen worker is a thread started from the bundled screen-worker.cjs beside it.
import { ScreenModel } from "../dist/daemon/screen-model.js";

const opened: ScreenModel[] = [];
afterEach(() => {
  for (const model of opened.splice(0)) model.close();
});

function model(cols: number, rows: number): ScreenModel {
  const created = new ScreenModel(
    { cols, rows, scrollback: 10_000 },
    () => {},
    () => {},
  );
  opened.push(created);
  return created;
}

/** A 200x50 pane whose history is full (10,000 lines, each wrapped at 120 columns): every reflow is real work. */
async function paneWithFullHistory(): Promise<ScreenModel> {
  const pane = model(200, 50);
  let history = "";
  for (let n = 0; n < 10_050; n++) history += `history line ${n} ${"x".repeat(150)}\r\n`;
  for (let at = 0; at < history.length; at += 64 * 1024) pane.write(history.slice(at, at + 64 * 1024));
  await pane.settled();
  return pane;
}

/** A capture's rows (it ends each with a newline). */
const rowsOf = (text: string) => text.replace(/\n$/, "").split("\n");

/** The size of resize `i` of a burst: 120x40 and 200x50 in turn. */
const sizeAt = (i: number) => (i % 2 ? { cols: 200, rows: 50 } : { cols: 120, rows: 40 });

/** What a full-screen program prints on SIGWINCH: the screen cleared, then every row drawn again at the new size. */
function redraw(i: number): string {
  const { cols, rows } = sizeAt(i);
  let screen = "\u001b[H\u001b[2J";
  for (let row = 1; row <= rows; row++) screen += `\u001b[${row};1H${`redraw ${i} row ${row} `.padEnd(cols, "#")}`;
  return screen;
}

/**
 * Ask `quiet` for its screen again and again, each time its last answer has
 * come, until `work` is done: how many answers it got meanwhile. The worker
 * yields to the next turn of its event loop after each reflow (xterm slices
 * its work at 12 ms, and a reflow of a full history takes longer), and a
 * quiet pane's capture is answered in the turn it comes: the count is about
 * the number of reflows `work` waited for.
 */
async function capturesDuring(quiet: ScreenModel, work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.then(() => {
    done = true;
  });
  let answered = 0;
  while (!done) {
    await quiet.capture({});
    answered++;
  }
  return answered;
}

describe("venom-mux: one pane's resizes never stall another pane", () => {
  it("40 resizes, each followed by the program's redraw, cost one reflow of the full history, not 40", async () => {
    const resized = await paneWithFullHistory();
    const quiet = model(80, 24);
    quiet.write("a prompt$ ");
    // As a pane passes them on: each resize, then the output its SIGWINCH made the program print, before the next resize.
    for (let i = 0; i < 40; i++) {
      const { cols, rows } = sizeAt(i);
      resized.resize(cols, rows);
      resized.write(redraw(i));
    }
    const screen = resized.capture({});
    const answered = await capturesDuring(quiet, screen);
    // The screen is the last redraw, at the last size.
    const lines = rowsOf(await screen);
    expect(lines[0]).toBe(`redraw 39 row 1 ${"#".repeat(200 - "redraw 39 row 1 ".length)}`);
    expect(lines).toHaveLength(50);
    // A turn for the quiet pane between reflows: 23-37 answers while 40 reflows were worked through, 2 for one.
    expect(answered, "captures of another pane answered while the burst was worked through").toBeLessThan(10);
  });

  it("while one pane's resizes (each one asked for its screen, so each is a reflow) are worked through, another pane's capture is answered", async () => {
    const resized = await paneWithFullHistory();
    const quiet = model(80, 24);
    quiet.write("a prompt$ ");
    // A request after each resize keeps it apart from the next: 40 reflows of a full history, each one real work.
    let resizedAnswered = 0;
    const screens = Array.from({ length: 40 }, (_, i) => {
      const { cols, rows } = sizeAt(i);
      resized.resize(cols, rows);
      return resized.capture({}).then((text) => {
        resizedAnswered++;
        return text;
      });
    });
    expect((await quiet.capture({})).split("\n")[0]).toBe("a prompt$");
    // Ordering, not timing: the quiet pane's capture waited for at most the reflow under way (xterm's reflow is one
    // step the worker cannot cut; it yields after each), not for the other pane's queue of them (0 in every run seen).
    expect(resizedAnswered, "the resized pane's captures answered before the quiet pane's").toBeLessThan(5);
    // Each of the resized pane's captures shows its pane at the size asked for before it.
    for (const [i, text] of (await Promise.all(screens)).entries()) expect(rowsOf(text)).toHaveLength(sizeAt(i).rows);
  });
});
