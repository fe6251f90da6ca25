import type { Terminal } from "@xterm/headless";
import { VERSION } from "../common/version.js";

/**
 * A pane's terminal queries are answered here, from its screen model, as tmux
 * answers them itself: the program gets its answer whether or not anyone is
 * attached, and no query ever reaches a real terminal (the viewers' stream is
 * filtered, see output-filter.ts). xterm answers cursor position (DSR 6n and
 * DECXCPR), device status (5n), DA1, DECRQM and DECRQSS itself; what it leaves
 * unanswered, or answers as xterm rather than as tmux, is handled below.
 */

/** tmux's own secondary device attributes (84 is "T" for tmux); xterm's would claim xterm patch level 276. */
const DA2 = "\x1b[>84;0;0c";
/** A nominal character cell in pixels (tmux's defaults when no client reports one): the model has no pixels. */
const CELL = { width: 16, height: 32 };
/** The model's default colours: xterm's (and xterm.js's) dark defaults. */
const FOREGROUND = 0xffffff;
const BACKGROUND = 0x000000;
const ST = "\x1b\\";

/** Terminal options that let the window reports below through (xterm runs handlers of CSI t only for enabled operations). */
export const WINDOW_REPORTS = { getWinSizePixels: true, getCellSizePixels: true, getWinSizeChars: true } as const;

/** Register the answers on `terminal`; `reply` writes an answer to the pane's program (xterm's own go through onData). */
export function answerQueries(terminal: Terminal, reply: (data: string) => void): void {
  terminal.onData(reply);
  const { parser } = terminal;
  // DA2: CSI > c or CSI > 0 c.
  parser.registerCsiHandler({ prefix: ">", final: "c" }, (params) => {
    if ((params[0] ?? 0) === 0) reply(DA2);
    return true;
  });
  // XTVERSION: CSI > q or CSI > 0 q, answered with a DCS as tmux and xterm do.
  parser.registerCsiHandler({ prefix: ">", final: "q" }, (params) => {
    if ((params[0] ?? 0) === 0) reply(`\x1bP>|venom-mux ${VERSION}${ST}`);
    return true;
  });
  // Window reports: text area in pixels (14t), cell size in pixels (16t), text area in characters (18t).
  parser.registerCsiHandler({ final: "t" }, (params) => {
    const { cols, rows } = terminal;
    switch (params[0]) {
      case 14:
        reply(`\x1b[4;${rows * CELL.height};${cols * CELL.width}t`);
        return true;
      case 16:
        reply(`\x1b[6;${CELL.height};${CELL.width}t`);
        return true;
      case 18:
        reply(`\x1b[8;${rows};${cols}t`);
        return true;
      default:
        return false;
    }
  });
  // OSC 10/11 default foreground/background, OSC 4 palette entries: `?` asks for the colour.
  for (const [ident, colour] of [
    [10, FOREGROUND],
    [11, BACKGROUND],
  ] as const) {
    parser.registerOscHandler(ident, (data) => {
      if (data !== "?") return false;
      reply(`\x1b]${ident};${rgb(colour)}${ST}`);
      return true;
    });
  }
  parser.registerOscHandler(4, (data) => {
    const parts = data.split(";");
    let answered = false;
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const index = Number(parts[i]);
      if (parts[i + 1] !== "?" || !Number.isInteger(index) || index < 0 || index > 255) continue;
      reply(`\x1b]4;${index};${rgb(paletteColour(index))}${ST}`);
      answered = true;
    }
    return answered;
  });
}

/** An X11 colour spec with 16-bit channels, as xterm answers: rgb:rrrr/gggg/bbbb. */
function rgb(colour: number): string {
  return `rgb:${[16, 8, 0].map((shift) => ((colour >> shift) & 0xff).toString(16).padStart(2, "0").repeat(2)).join("/")}`;
}

/** xterm's 16 ANSI colours. */
const ANSI = [
  0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff,
  0xff00ff, 0x00ffff, 0xffffff,
];

/** xterm's 256-colour palette: 16 ANSI colours, a 6×6×6 cube, 24 greys. */
function paletteColour(index: number): number {
  if (index < 16) return ANSI[index] as number;
  if (index < 232) {
    const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
    const n = index - 16;
    return (level(Math.floor(n / 36)) << 16) | (level(Math.floor(n / 6) % 6) << 8) | level(n % 6);
  }
  const grey = 8 + (index - 232) * 10;
  return (grey << 16) | (grey << 8) | grey;
}
