import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cli, tempDir } from "@venom/testkit";
import { describe, expect, it } from "vitest";
import { daemonForFile, needsTmux } from "./started.js";
import { poll, Tmux } from "./tmux.js";

/**
 * Real full-screen programs (vim, less, top and a curses program shipped as a
 * fixture) run in a venom-mux pane and in a tmux pane of the same size with the
 * same TERM and locale, driven by the same keys by name; after each step the
 * screens, read back with `capture`, must be the same.
 */

interface Step {
  /** tmux key names, sent by `venom-mux send` and `tmux send-keys` alike; with `literal`, text typed as it is. */
  keys: string[];
  literal?: boolean;
}

interface Scenario {
  name: string;
  /** The program, run the same way in both (no shell in between). */
  argv: string[];
  /** Capture flag sets compared after each step. */
  flags: string[][];
  steps: Step[];
  /** What varies between two runs of the program whatever the terminal (clocks, pids), made equal in both. */
  normalize?: (screen: string) => string;
  /** Skipped, with this reason, when the program is not installed. */
  needs?: string;
  /**
   * A deliberate difference (docs/venom-mux.md, "What differs from tmux"): what venom-mux shows is tmux's screen
   * passed through this; it must change tmux's screen at least once in the scenario, or the difference is gone.
   */
  deliberate?: (tmuxScreen: string) => string;
}

const dir = tempDir("tui");
const FIXTURE = fileURLToPath(new URL("./fixtures/curses-board.py", import.meta.url));
const TEXT = join(dir, "notes.txt");
writeFileSync(TEXT, `${Array.from({ length: 60 }, (_, i) => `line ${i + 1}: ${"word ".repeat(i % 7)}end`).join("\n")}\n`);
const COLS = 80;
const ROWS = 24;
/** The same terminal type and locale in both panes: tmux's own default TERM would make programs draw differently. */
const ENV = ["TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "NCURSES_NO_UTF8_ACS=1"];

const SCENARIOS: Scenario[] = [
  {
    name: "vim: moving, searching, deleting, inserting, :set number",
    argv: ["vim", "-u", "NONE", "-i", "NONE", "-N", "-n", TEXT],
    needs: "vim",
    flags: [[], ["-e"]],
    steps: [
      { keys: [] },
      { keys: ["G"] },
      { keys: ["g", "g", "/", "line 17", "Enter"] },
      { keys: ["d", "d", "j", "x"] },
      { keys: ["o", "an inserted line 幅広い", "Escape"] },
      { keys: [":set number", "Enter"] },
      { keys: ["C-f"] },
      { keys: [":set background?", "Enter"] },
    ],
    // vim asks the terminal for its background colour (OSC 11). Detached, tmux 3.3a does not answer, so vim takes a
    // light background; venom-mux answers (xterm's black), so vim takes a dark one and picks its colours for it.
    deliberate: (screen) => screen.replaceAll("\x1b[38;5;130m", "\x1b[93m").replace("background=light", "background=dark"),
  },
  {
    name: "less: paging, searching, the end",
    argv: ["less", TEXT],
    needs: "less",
    flags: [[], ["-e"]],
    steps: [{ keys: [] }, { keys: ["Space"] }, { keys: ["/", "line 4", "Enter"] }, { keys: ["G"] }, { keys: ["g"] }],
  },
  {
    name: "a curses program: box, colours, wide characters, arrow keys in keypad mode",
    argv: ["python3", FIXTURE],
    needs: "python3",
    flags: [[], ["-e"]],
    steps: [{ keys: [] }, { keys: ["Down", "Down", "Right"] }, { keys: ["Up", "Left", "Left", "a", "NPage", "F5"] }],
  },
  {
    name: "top: the layout of its screen",
    argv: ["top", "-d", "100"],
    needs: "top",
    flags: [[]],
    steps: [{ keys: [] }],
    // Only the layout is the same from one run to the next: the first lines with numbers masked, and where the list starts.
    // A number that fills its field (`%Cpu(s):100.0 us`, `0.0 us,100.0 sy`) leaves no space after the colon or comma.
    normalize: (screen) => {
      const lines = screen.split("\n");
      const header = lines.findIndex((line) => /^\s*PID\s+USER/.test(line));
      const masked = lines.slice(0, 4).map((line) =>
        line
          .replace(/\d+([.,:]\d+)*/g, "9")
          .replace(/([:,])\s*/g, "$1 ")
          .replace(/\s+/g, " "),
      );
      return [...masked, `header at ${header}: ${lines[header]?.trim()}`, `${lines.length} lines`].join("\n");
    },
  },
];

const daemon = daemonForFile();

/** The daemon refuses a pane whose program is not on PATH. */
function installed(program: string): boolean {
  const probe = cli(daemon(), ["new", "-d", "-n", `probe-${program}`, "--", program, "--version"]);
  cli(daemon(), ["kill", "-t", `probe-${program}`]);
  return probe.code === 0;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

describe("real programs look the same in venom-mux and in tmux", () => {
  needsTmux();
  SCENARIOS.forEach((scenario, index) => {
    it(scenario.name, async () => {
      // A skip would hide the test: a machine without the program fails it, saying what to install.
      if (scenario.needs && !installed(scenario.needs))
        throw new Error(`${scenario.needs} is not installed: this test runs it (README, "Two commands")`);
      const name = `tui${index}`;
      const argv = ["env", ...ENV, ...scenario.argv];
      const created = cli(daemon(), ["new", "-d", "-n", name, "-x", String(COLS), "-y", String(ROWS), "--", ...argv]);
      expect(created.stderr).toBe("");
      const tmux = Tmux.start({ env: process.env, cols: COLS, rows: ROWS, cwd: dir, command: argv.map(quote).join(" ") });
      const normalize = scenario.normalize ?? ((screen: string) => screen);
      const ours = (flags: string[]) => normalize(cli(daemon(), ["capture", "-p", "-t", name, ...flags]).stdout);
      const theirs = (flags: string[]) => normalize(tmux.run("capture-pane", "-p", "-t", "main", ...flags));
      const expected = scenario.deliberate ?? ((screen: string) => screen);
      let differed = false;
      try {
        for (const [n, step] of scenario.steps.entries()) {
          if (step.keys.length > 0) {
            const literal = step.literal ? ["-l"] : [];
            expect(cli(daemon(), ["send", "-t", name, ...literal, ...step.keys]).code).toBe(0);
            tmux.run("send-keys", "-t", "main", ...literal, ...step.keys);
          }
          for (const flags of scenario.flags) {
            // Both screens settle after the keys; they must settle on the same thing.
            let last = { ours: "", theirs: "" };
            await poll(
              () => {
                last = { ours: ours(flags), theirs: theirs(flags) };
                return last.ours === expected(last.theirs) && last.ours.trim() !== "" ? true : undefined;
              },
              () => "",
              15_000,
            ).catch(() => expect({ step: n, flags, text: last.ours }).toEqual({ step: n, flags, text: expected(last.theirs) }));
            differed ||= expected(last.theirs) !== last.theirs;
          }
        }
        expect(differed, "the deliberate difference showed").toBe(scenario.deliberate !== undefined);
      } finally {
        tmux.kill();
        cli(daemon(), ["kill", "-t", name]);
      }
    });
  });
});
