import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, connect, RawClient, startMux, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/**
 * A full-screen program with a full history: 10,050 lines (each wrapped at
 * the pane's 120 columns, so its 10,000 lines of scrollback are full), then a
 * redraw of every row at the new size on each SIGWINCH.
 */
const REDRAWER = `
let history = "";
for (let n = 0; n < 10050; n++) history += "history line " + n + " " + "x".repeat(150) + "\\n";
process.stdout.write(history + "history done\\n");
process.stdout.on("resize", () => {
  const { columns: cols, rows } = process.stdout;
  let screen = "\\u001b[H\\u001b[2J";
  for (let row = 1; row <= rows; row++) screen += "\\u001b[" + row + ";1H" + ("redraw " + cols + "x" + rows + " row " + row + " ").padEnd(cols, "#");
  process.stdout.write(screen);
});
setInterval(() => {}, 1 << 30);
`;

/** The sizes a burst goes through, from the pane's first (120x40): the first 20 end at 160x45, all 40 at 200x50. */
const SIZES = [
  { cols: 200, rows: 50 },
  { cols: 160, rows: 45 },
  { cols: 120, rows: 40 },
];
const sizeAt = (i: number) => SIZES[i % 3] as { cols: number; rows: number };

/** A capture's rows (it ends each with a newline). */
const rowsOf = (text: string) => text.replace(/\n$/, "").split("\n");

describe("venom-mux: one pane's resizes never stall another pane's capture", () => {
  it("40 resizes of a pane with a full history that redraws on each, sent in one write: another pane's capture, asked after them, is answered before the resized pane's work is done", async () => {
    const mux = await startMux();
    const client = await connect(mux);
    const raw = await RawClient.open(mux.socket);
    try {
      const script = join(tempDir("redrawer"), "redrawer.cjs");
      writeFileSync(script, REDRAWER);
      await client.request("pane/new", { name: "resized", argv: [process.execPath, script], cols: 120, rows: 40 });
      await client.request("pane/new", { name: "quiet", argv: ["bash", "--norc", "--noprofile"] });
      await client.request("pane/send", { target: "quiet", data: "PS1='a prompt$ '; clear\r" });
      const capture = async (target: string) => ((await client.request("pane/capture", { target })) as { text: string }).text;
      await expect.poll(() => capture("resized"), { timeout: 60_000 }).toMatch(/history done/);
      await expect.poll(() => capture("quiet"), { timeout: 30_000 }).toMatch(/^a prompt\$$/m);
      await client.request("pane/send", { target: "quiet", data: "typed text" });
      await expect.poll(() => capture("quiet"), { timeout: 30_000 }).toMatch(/^a prompt\$ typed text$/m);
      raw.hello();
      expect((await raw.next(1)).result).toBeDefined();

      // One write, as fast as a client can send: 20 resizes, a capture of the resized pane (id 100), 20 more resizes,
      // another capture of it (id 101), then a capture of the quiet pane (id 102). Each 20 cost the resized pane one
      // reflow of its full history, which the worker cannot cut; its captures wait for them, the quiet one must not.
      const request = (id: number, method: string, params: unknown) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
      const resizes = (from: number) =>
        Array.from({ length: 20 }, (_, i) => request(2 + from + i, "pane/resize", { target: "resized", ...sizeAt(from + i) })).join("");
      raw.send(
        resizes(0) +
          request(100, "pane/capture", { target: "resized" }) +
          resizes(20) +
          request(101, "pane/capture", { target: "resized" }) +
          request(102, "pane/capture", { target: "quiet" }),
      );
      // Meanwhile the quiet pane's screen again and again, each time its last answer came, until the resized pane's
      // last capture is answered.
      const answered = (id: number) => raw.lines.find((line) => (line as { id?: number }).id === id) as { result?: { text: string } };
      let quietAnswers = 0;
      while (!answered(101)) {
        expect(await capture("quiet")).toMatch(/^a prompt\$ typed text$/m);
        quietAnswers++;
      }
      await raw.next(43);
      const order = raw.lines.map((line) => (line as { id: number }).id).filter((id) => id >= 100);
      // Ordering, not timing: the quiet pane's capture waits for at most the reflow under way, never for the resized
      // pane's whole queue (two reflows of 10,000 lines, and its captures between them).
      // (The quiet capture may come before or after the first: that depends on when the worker reads its message.)
      expect(order.indexOf(102), `answered in the order ${order}`).toBeLessThan(order.indexOf(101));
      expect(answered(102).result?.text).toMatch(/^a prompt\$ typed text$/m);
      // Each 20 resizes cost one reflow, not 20: the quiet pane got a turn or two while they were worked through, and
      // one between each two reflows when every resize reflowed (docs/security-model.md, the screen worker's row).
      expect(quietAnswers, "captures of the quiet pane answered while the resized pane's were worked through").toBeLessThan(10);
      // Each capture of the resized pane shows it at the size asked for before it; its program redrew at the last one.
      expect(rowsOf(answered(100).result?.text ?? "")).toHaveLength(sizeAt(19).rows);
      expect(rowsOf(answered(101).result?.text ?? "")).toHaveLength(sizeAt(39).rows);
      await expect.poll(() => capture("resized"), { timeout: 30_000 }).toMatch(/^redraw 200x50 row 1 #+$/m);
    } finally {
      raw.close();
      client.close();
      await mux.stop();
    }
  }, 120_000);
});
