import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, tempDir } from "@venom/testkit";
import { describe, expect, it } from "vitest";
import { daemonForFile, needsTmux } from "./started.js";
import { poll, Tmux } from "./tmux.js";

/**
 * The same output in a venom-mux pane and a tmux pane of the same size, read
 * back with the same capture flags: the captures must be identical. Each case
 * is a byte stream a real program could write; the deliberate differences are
 * listed (and tested) in docs/venom-mux.md, "What differs from tmux".
 */

interface Case {
  name: string;
  bytes: string;
  cols?: number;
  rows?: number;
  /** Capture flag sets compared (each also gets `-p -t PANE`). */
  captures: string[][];
  /** A deliberate difference (docs/venom-mux.md): with these flags venom-mux prints `venom`, and tmux something else. */
  deliberate?: { flags: string[]; venom: string };
}

const ESC = "\x1b";
const lines = (n: number, label = "line") => Array.from({ length: n }, (_, i) => `${label} ${i + 1}\n`).join("");
const PLAIN = [[], ["-N"], ["-J"], ["-S", "-"], ["-S", "-", "-N"]];
const ALL = [...PLAIN, ["-e"], ["-e", "-N"], ["-e", "-J"], ["-S", "-", "-e"]];

const CASES: Case[] = [
  {
    name: "a prompt with a trailing space, written spaces, blank lines",
    bytes: `user@host:~# \nspaces after   \n\n   indented\nlast   `,
    captures: PLAIN,
  },
  {
    name: "colours and attributes (ls --color), carried across lines",
    bytes:
      `${ESC}[0m${ESC}[01;34mdir${ESC}[0m  ${ESC}[01;32mexec${ESC}[0m  plain  ${ESC}[4munder${ESC}[0m   \n` +
      `${ESC}[1;32mgreen\n still${ESC}[0m\n${ESC}[38;5;200mx${ESC}[48;2;1;2;3my${ESC}[0m\n${ESC}[91mbright${ESC}[0m ${ESC}[7minverse${ESC}[27m ${ESC}[3;9mit${ESC}[0m\n` +
      `${ESC}[44m   blue bg   ${ESC}[0m\n${ESC}[41m${ESC}[K${ESC}[0mafter a red erase\n`,
    captures: ALL,
  },
  {
    name: "underline styles and colours, and a hyperlink (not underlined by itself)",
    bytes:
      `plain ${ESC}]8;;http://x.y${ESC}\\link${ESC}]8;;${ESC}\\ after\n${ESC}[4:3mcurly${ESC}[0m x\n${ESC}[4;58;5;196mulc${ESC}[0m y\n` +
      `${ESC}[4:2mdouble${ESC}[24m ${ESC}[4:4mdotted${ESC}[4:5mdashed${ESC}[0m ${ESC}[4;58;2;1;2;3mrgb${ESC}[59m default${ESC}[0m\n` +
      `${ESC}[58;5;3m${ESC}[4mpalette${ESC}[0m\n`,
    captures: [["-e"], ["-e", "-J"]],
  },
  {
    name: "overline is written 53, where tmux 3.3a writes 5:3 (which a terminal reads as blink)",
    bytes: `a${ESC}[53mover${ESC}[0m b\n`,
    captures: [[]],
    deliberate: { flags: ["-e", "-E", "0"], venom: `a${ESC}[53mover${ESC}[0m${ESC}[39m${ESC}[49m b\n` },
  },
  {
    name: "tabs, backspaces, cursor moves and erases",
    bytes: `a\tb\tc\n\tx\nabcdef${ESC}[3Dxy\nxxxxxxxx\b\b\b${ESC}[K\nyyyyyyyy${ESC}[4G${ESC}[1K\n`,
    captures: [[], ["-S", "-"]],
  },
  {
    name: "-N keeps the spaces a program wrote, not the cells it erased",
    bytes: `kept   \nxxxxxxxx\b\b\b${ESC}[K\n`,
    captures: [[]],
    // tmux also prints the erased cells of the second line as spaces ("xxxxx   "): it still counts them as used.
    deliberate: { flags: ["-N", "-E", "1"], venom: "kept   \nxxxxx\n" },
  },
  {
    name: "long lines wrapping, and -J joining them",
    bytes: `${"x".repeat(100)}\n${"y".repeat(250)}\nshort\n${"z".repeat(80)}\nafter exact width\n`,
    captures: [...PLAIN, ["-e", "-J"]],
  },
  {
    name: "wide characters: CJK, emoji, flags, combining marks, a wide character that does not fit at the end of a line",
    bytes:
      `${"😀".repeat(40)}\n${"😀".repeat(41)}\n漢字テスト한국어\n${"x".repeat(79)}漢\ne\u0301 cafe\u0301 ❤️ 🇫🇷 👍🏽 👨‍👩‍👧 ©\n` +
      `${ESC}[31m漢${ESC}[0m字\n`,
    captures: [...PLAIN, ["-e"]],
  },
  {
    name: "line drawing (DEC special graphics) is captured as the Unicode box characters it shows",
    bytes: `${ESC}(0lqqk${ESC}(B\nx\n`,
    captures: [["-S", "1"]],
    // tmux prints the ASCII bytes the program sent ("lqqk"), which show as box drawing only after SO or ESC ( 0.
    deliberate: { flags: ["-E", "0"], venom: "┌──┐\n" },
  },
  {
    name: "emoji newer than Unicode 11 take one cell (Unicode 11 widths); tmux takes the C library's",
    bytes: `${"🥲".repeat(41)}\n`,
    captures: [["-S", "2"]],
    // glibc gives U+1F972 two cells, so tmux wraps after 40 of them.
    deliberate: { flags: ["-E", "0"], venom: `${"🥲".repeat(41)}\n` },
  },
  {
    name: "a combining mark at column 0 is kept as a cell of its own (tmux drops it)",
    bytes: "\u0301x\n",
    captures: [["-S", "1"]],
    deliberate: { flags: ["-E", "0"], venom: "\u0301x\n" },
  },
  {
    name: "a \\r progress bar",
    bytes: "10% [#    ]\r20% [##   ]\r30% [###  ]\rdone\n",
    captures: PLAIN,
  },
  {
    name: "history: 2000 lines, read back with negative and reversed -S/-E",
    bytes: lines(2000),
    captures: [
      ["-S", "-"],
      ["-S", "-100", "-E", "-1"],
      ["-E", "-1", "-S", "-5"],
      ["-S", "-3000", "-E", "-1990"],
      ["-S", "5", "-E", "2"],
      ["-S", "-3", "-E", "40"],
      ["-S", "10"],
      ["-E", "-"],
    ],
  },
  {
    name: "a scroll region that does not start at the top keeps its lines out of history",
    bytes: `${lines(3, "top")}${ESC}[5;10r${ESC}[10;1H${lines(20, "region")}${ESC}[r${ESC}[20;1Hend\n`,
    captures: [[]],
    // tmux 3.3a moves each line scrolled off such a region into history, above lines still on the screen.
    deliberate: { flags: ["-S", "-", "-E", "2"], venom: "top 1\ntop 2\ntop 3\n" },
  },
  {
    name: "a scroll region at the top sends its lines to history",
    bytes: `${ESC}[1;10r${ESC}[10;1H${lines(20, "region")}${ESC}[r${ESC}[20;1Hend\n`,
    captures: [["-S", "-"], []],
  },
  {
    name: "ED2 (clear screen) after output, then more output",
    bytes: `${lines(30)}${ESC}[H${ESC}[2Jafter clear\n`,
    captures: [["-S", "-"], []],
  },
  {
    name: "clear (ED2 and ED3): history goes",
    bytes: `${lines(30)}${ESC}[H${ESC}[2J${ESC}[3Jafter clear\n`,
    captures: [["-S", "-"], []],
  },
  {
    name: "the alternate screen and back",
    bytes: `${lines(5, "main")}${ESC}[?1049h${ESC}[Hfull screen program${ESC}[?1049lback\n`,
    captures: [["-S", "-"], []],
  },
  {
    name: "on the alternate screen, the history above it is the normal screen's",
    bytes: `${lines(40, "main")}${ESC}[?1049h${ESC}[Hfull screen program\nits second line`,
    captures: [["-S", "-"], ["-S", "-5"], ["-S", "-", "-J"], ["-S", "-3", "-E", "2", "-e"], []],
  },
];

const daemon = daemonForFile({ config: "[mux]\nscrollback_lines = 10000\n" });
const dir = tempDir("differential");

/** The shell line a pane runs: write the case's bytes, say so, and stay (so the pane is there to capture). */
function program(index: number, text: string): { command: string; done: string } {
  const file = join(dir, `case-${index}.out`);
  writeFileSync(file, text);
  const done = `${file}.done`;
  return { command: `cat '${file}'; touch '${done}'; exec sleep 100000`, done };
}

/** Read `read()` until the program is done and two reads agree: the pane has taken all of its output. */
function settled(done: string, read: () => string): Promise<string> {
  let previous: string | undefined;
  return poll(
    () => {
      if (!existsSync(done)) return undefined;
      const now = read();
      const same = now === previous;
      previous = now;
      return same ? now : undefined;
    },
    () => `never settled: ${previous}`,
    30_000,
  );
}

describe("venom-mux captures what tmux captures", () => {
  needsTmux();
  CASES.forEach((c, index) => {
    it(c.name, async () => {
      const cols = c.cols ?? 80;
      const rows = c.rows ?? 24;
      const ours = program(index, c.bytes);
      const name = `case${index}`;
      const created = cli(daemon(), ["new", "-d", "-n", name, "-x", String(cols), "-y", String(rows), "--", "sh", "-c", ours.command]);
      expect(created.stderr).toBe("");
      const capture = (flags: string[]) => {
        const result = cli(daemon(), ["capture", "-p", "-t", name, ...flags]);
        if (result.code !== 0) throw new Error(`venom-mux capture ${flags.join(" ")}: ${result.stderr}`);
        return result.stdout;
      };
      await settled(ours.done, () => capture(["-S", "-"]));

      const theirs = program(index + 1000, c.bytes);
      const tmux = Tmux.start({ env: process.env, cols, rows, command: theirs.command, historyLimit: 10_000 });
      try {
        await settled(theirs.done, () => tmux.run("capture-pane", "-p", "-t", "main", "-S", "-"));
        for (const flags of c.captures) {
          const reference = tmux.run("capture-pane", "-p", "-t", "main", ...flags);
          expect({ flags: flags.join(" "), text: capture(flags) }).toEqual({ flags: flags.join(" "), text: reference });
        }
        if (c.deliberate) {
          expect(capture(c.deliberate.flags)).toBe(c.deliberate.venom);
          expect(tmux.run("capture-pane", "-p", "-t", "main", ...c.deliberate.flags)).not.toBe(c.deliberate.venom);
        }
      } finally {
        tmux.kill();
      }
    });
  });
});
