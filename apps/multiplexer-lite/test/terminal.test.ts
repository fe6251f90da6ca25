import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { VERSION } from "../src/common/version.js";
import { OutputFilter } from "../src/daemon/output-filter.js";
import { endedAfterEach, needsTmux } from "./started.js";
import { poll, Tmux } from "./tmux.js";

/**
 * The pane as a terminal, to the program in it: its queries are answered by
 * the pane's screen model, attached or not, the way tmux answers them.
 */

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const started = endedAfterEach();
const mux = () => started.mux();

function readAnswers(file: string): Promise<Record<string, string>> {
  let text = "";
  return poll(
    () => {
      try {
        text = readFileSync(file, "utf8");
        return JSON.parse(text) as Record<string, string>;
      } catch {
        return undefined;
      }
    },
    () => `no answers in ${file}: ${text}`,
    20_000,
  );
}

describe("terminal queries", () => {
  needsTmux();
  it("are answered by the pane's screen model with nobody attached, as tmux answers them", async () => {
    const d = await mux();
    const ours = join(d.workspace, "venom.json");
    await d.client.request("pane/new", { argv: [process.execPath, fixture("ask-terminal.mjs"), ours], cols: 80, rows: 24 });
    const venom = await readAnswers(ours);

    const tmux = Tmux.start({ env: process.env, cols: 80, rows: 24, cwd: d.workspace });
    started.tmux(tmux);
    const theirs = join(d.workspace, "tmux.json");
    await tmux.waitFor(/^outer\$ ?$/m);
    tmux.enter(`${process.execPath} ${fixture("ask-terminal.mjs")} ${theirs}`);
    const reference = await readAnswers(theirs);

    // The answers tmux gives, given alike: cursor position, device status, primary and secondary attributes.
    for (const query of ["DSR6", "DSR5", "DA1", "DA2"])
      expect({ query, answer: venom[query] }).toEqual({ query, answer: reference[query] });
    expect(venom.DSR6).toBe("\x1b[3;5R");
    expect(reference.XTVERSION?.startsWith("\x1bP>|tmux ")).toBe(true);
    expect(venom.XTVERSION).toBe(`\x1bP>|venom-mux ${VERSION}\x1b\\`);
    // Where tmux stays silent (no client to ask) or answers wrongly, the model answers (docs/venom-mux.md, "What differs from tmux").
    expect(reference.WIN18).toBe("\x1b[8;80;24t"); // tmux 3.3a swaps rows and columns
    expect(venom.WIN18).toBe("\x1b[8;24;80t");
    expect(venom.WIN14).toBe("\x1b[4;768;1280t");
    expect(venom.WIN16).toBe("\x1b[6;32;16t");
    expect(venom.DECRQM1).toBe("\x1b[?1;2$y");
    expect(venom.OSC10).toBe("\x1b]10;rgb:ffff/ffff/ffff\x1b\\");
    expect(venom.OSC11).toBe("\x1b]11;rgb:0000/0000/0000\x1b\\");
    expect(venom.OSC4).toBe("\x1b]4;1;rgb:cdcd/0000/0000\x1b\\");
  });

  it("let a program that refuses to start without a cursor position answer start, and type into it cleanly", async () => {
    const d = await mux();
    await d.client.request("pane/new", { name: "tui", argv: [process.execPath, fixture("needs-cursor.mjs")], cols: 80, rows: 24 });
    await expect
      .poll(async () => (await d.client.request("pane/capture", { target: "tui" })).text, { timeout: 20_000 })
      .toMatch(/^ready at 1;1$/m);
    await d.client.request("pane/send", { target: "tui", data: "hello", enter: true });
    await expect
      .poll(async () => (await d.client.request("pane/capture", { target: "tui" })).text, { timeout: 20_000 })
      .toMatch(/^got: "hello"$/m);
  });
});

describe("a new pane's terminal settings", () => {
  needsTmux();
  it("are tmux's: stty -a prints the same in both", async () => {
    const d = await mux();
    const ours = join(d.workspace, "venom-stty.txt");
    const theirs = join(d.workspace, "tmux-stty.txt");
    await d.client.request("pane/new", { argv: ["sh", "-c", `stty -a > ${ours}.tmp && mv ${ours}.tmp ${ours}; exec sleep 60`] });
    const tmux = Tmux.start({
      env: process.env,
      cols: 80,
      rows: 24,
      command: `stty -a > ${theirs}.tmp && mv ${theirs}.tmp ${theirs}; exec sleep 60`,
    });
    started.tmux(tmux);
    const read = (file: string) =>
      poll(
        () => (existsSync(file) ? readFileSync(file, "utf8") : undefined),
        () => `no ${file}`,
        20_000,
      );
    const reference = await read(theirs);
    expect(reference).toMatch(/-brkint/);
    expect(await read(ours)).toBe(reference);
  });
});

describe("what reaches a viewer's terminal", () => {
  const stream =
    "a\x1b[6nb\x1b[>c\x1b[c\x1b[?1$p\x1b[>q\x1b[18t\x1b]2;title\x07c\x1b]0;t\x1b\\\x1b]52;c;aGk=\x07" +
    "\x1bP$qm\x1b\\\x1b_Gf=1;AAAA\x1b\\\x1b[>1u\x1b[>4;2m\x1b]8;;http://x\x07link\x1b]8;;\x07" +
    "\x1b[31mred\x1b[0m\x1b[?1049h\x1b(B\u009b5nd\u009d2;x\u009ce" +
    // DECID, DECRQTSR, DECRQPSR, DECRQCRA, leaving UTF-8 (after which an 8-bit OSC would pass unseen); a cursor restore stays.
    "\x1bZf\x1b[1$ug\x1b[1$wh\x1b[1;1;1;1;1;1*yi\x1b%@j\x1b%Gk\x1b[ul";

  it("drops queries, titles, key-mode changes and strings, keeps drawing and hyperlinks, split anywhere", () => {
    const expected = "abc\x1b]8;;http://x\x07link\x1b]8;;\x07\x1b[31mred\x1b[0m\x1b[?1049h\x1b(Bdefghijk\x1b[ul";
    expect(new OutputFilter(false).feed(stream)).toBe(expected);
    for (let cut = 1; cut < stream.length; cut++) {
      const filter = new OutputFilter(false);
      expect({ cut, text: filter.feed(stream.slice(0, cut)) + filter.feed(stream.slice(cut)) }).toEqual({ cut, text: expected });
    }
  });

  it("passes clipboard writes only when allowed", () => {
    expect(new OutputFilter(true).feed("x\x1b]52;c;aGk=\x07y")).toBe("x\x1b]52;c;aGk=\x07y");
    expect(new OutputFilter(false).feed("x\x1b]52;c;aGk=\x07y")).toBe("xy");
  });
});
