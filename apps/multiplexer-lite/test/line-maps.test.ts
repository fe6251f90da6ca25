import xterm from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { reuseEmptyLineMaps } from "../src/daemon/line-maps.js";

const write = (terminal: xterm.Terminal, data: string) => new Promise<void>((resolve) => terminal.write(data, resolve));

/** Every line of the buffer, history included, as text. */
function text(terminal: xterm.Terminal): string[] {
  const buffer = terminal.buffer.active;
  return Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? "");
}

/** Lines cycling through plain text, a combining mark, and a curly coloured underline (xterm's extended attributes). */
const line = (i: number) => [`plain ${i}`, `cafe\u0301 ${i}`, `\x1b[4:3m\x1b[58;5;1mcurly ${i}\x1b[0m`][i % 3] as string;
const shown = (i: number) => [`plain ${i}`, `cafe\u0301 ${i}`, `curly ${i}`][i % 3] as string;

describe("venom-mux: a full scrollback recycles its lines without new maps for plain ones", () => {
  it("applies to the xterm venom-mux ships, and a recycled plain line keeps its own maps", async () => {
    const terminal = new xterm.Terminal({ cols: 40, rows: 5, scrollback: 20, allowProposedApi: true });
    expect(reuseEmptyLineMaps(terminal), "xterm's BufferLine no longer has the shape line-maps.ts patches").toBe(true);
    await write(terminal, Array.from({ length: 25 }, (_, i) => `plain ${i}\r\n`).join(""));
    const lines = (terminal as unknown as { _core: { buffer: { lines: { get(i: number): { _combined: object } } } } })._core.buffer.lines;
    const before = Array.from({ length: 25 }, (_, i) => lines.get(i)._combined);
    // 25 more plain lines: each one recycles the oldest line of the full buffer.
    await write(terminal, Array.from({ length: 25 }, (_, i) => `plain ${25 + i}\r\n`).join(""));
    const after = Array.from({ length: 25 }, (_, i) => lines.get(i)._combined);
    expect(new Set([...before, ...after]).size).toBe(25);
    terminal.dispose();
  });

  it("recycled lines show what was written to them: combining marks, extended attributes and plain text, in turn", async () => {
    const terminal = new xterm.Terminal({ cols: 40, rows: 5, scrollback: 20, allowProposedApi: true });
    reuseEmptyLineMaps(terminal);
    const count = 200;
    await write(terminal, Array.from({ length: count }, (_, i) => `${line(i)}\r\n`).join(""));
    // The buffer holds the last 25 rows: 24 lines written and the empty one the cursor is on.
    expect(text(terminal)).toEqual([...Array.from({ length: 24 }, (_, i) => shown(count - 24 + i)), ""]);
    const buffer = terminal.buffer.active;
    for (let y = 0; y < 24; y++) {
      const underlined = buffer.getLine(y)?.getCell(0)?.isUnderline() === 1;
      expect({ line: text(terminal)[y], underlined }).toEqual({ line: shown(count - 24 + y), underlined: (count - 24 + y) % 3 === 2 });
    }
    terminal.dispose();
  });
});
