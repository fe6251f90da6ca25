import type { IBufferCell, IBufferLine, Terminal } from "@xterm/headless";

export interface CaptureOptions {
  /** tmux -S: 0 is the top visible line, negative reaches into history. */
  start?: number | undefined;
  /** tmux -E: inclusive; default the last visible line. */
  end?: number | undefined;
  /** tmux -e: keep colours and attributes as SGR escapes. */
  escapes?: boolean | undefined;
  /** tmux -J: join wrapped lines and keep trailing spaces. */
  join?: boolean | undefined;
  /** tmux -N: keep trailing spaces. */
  trailingSpaces?: boolean | undefined;
}

/**
 * `capture-pane -p` over the pane's screen model, as tmux 3.3a computes it
 * (cmd-capture-pane.c): line numbers are relative to the top visible line,
 * a number further back than the history is its first line, either end past
 * the screen is its last line, and a reversed range is swapped. Each line is
 * its cells up to the last one the program wrote; trailing spaces are trimmed
 * unless -N or -J; with -J a wrapped line runs on into the next.
 */
export function capture(terminal: Terminal, options: CaptureOptions = {}): string {
  const buffer = linesOf(terminal);
  const history = buffer.history;
  const last = history + terminal.rows - 1;
  const line = (n: number | undefined, otherwise: number) => (n === undefined ? otherwise : Math.min(last, Math.max(0, history + n)));
  let top = line(options.start, history);
  let bottom = line(options.end, last);
  if (bottom < top) [top, bottom] = [bottom, top];
  const trim = !options.join && !options.trailingSpaces;
  const cell = terminal.buffer.active.getNullCell();
  const sgr = new SgrRuns();
  let out = "";
  for (let y = top; y <= bottom; y++) {
    const row = buffer.getLine(y);
    let text = row ? (options.escapes ? sgr.line(row, cell) : row.translateToString(false, 0, usedCells(row, cell))) : "";
    if (trim) text = text.replace(/ +$/, "");
    out += text;
    if (!options.join || buffer.getLine(y + 1)?.isWrapped !== true) out += "\n";
  }
  return out;
}

/**
 * The lines capture numbers: the history, then the screen. On the alternate screen, which keeps no history, the
 * history is still the normal screen's, as in tmux (its grid's history stays while the alternate screen is shown).
 */
function linesOf(terminal: Terminal): { history: number; getLine(y: number): IBufferLine | undefined } {
  const { active, normal } = terminal.buffer;
  const history = normal.baseY;
  return { history, getLine: (y) => (y < history ? normal.getLine(y) : active.getLine(active.baseY + y - history)) };
}

/** Cells up to and including the last character written (an erase, even in colour, writes none): tmux's "cells used". */
function usedCells(line: IBufferLine, cell: IBufferCell): number {
  for (let x = line.length - 1; x >= 0; x--) {
    if (!line.getCell(x, cell)) continue;
    if (cell.getChars() !== "") return x + Math.max(1, cell.getWidth());
  }
  return 0;
}

/**
 * What capture reads of a cell beyond xterm's public IBufferCell: its
 * underline's style and colour (SGR 4:n and 58), which xterm's cells carry
 * (CellData) but its typings leave out. isUnderline() would not do: it is
 * also true of a hyperlink's text (OSC 8), which tmux does not underline. A
 * later xterm that renames these fails test/differential.test.ts.
 */
type Cell = IBufferCell & {
  /** 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed. */
  getUnderlineStyle(): number;
  /** Whether the cell has attributes beyond xterm's two words: without them the underline colour getters answer the foreground's. */
  hasExtendedAttrs(): number;
  getUnderlineColorMode(): number;
  getUnderlineColor(): number;
};

/**
 * Attributes in tmux's order (grid_string_cells_code), with the SGR code that
 * sets each. Each underline style is an attribute of its own, written as tmux
 * writes it (4:3 for curly); overline is 53, where tmux 3.3a writes 5:3.
 */
const ATTRIBUTES: [code: string, isSet: (cell: Cell) => boolean][] = [
  ["1", (c) => c.isBold() !== 0],
  ["2", (c) => c.isDim() !== 0],
  ["3", (c) => c.isItalic() !== 0],
  ["4", (c) => c.getUnderlineStyle() === 1],
  ["5", (c) => c.isBlink() !== 0],
  ["7", (c) => c.isInverse() !== 0],
  ["8", (c) => c.isInvisible() !== 0],
  ["9", (c) => c.isStrikethrough() !== 0],
  ["4:2", (c) => c.getUnderlineStyle() === 2],
  ["4:3", (c) => c.getUnderlineStyle() === 3],
  ["4:4", (c) => c.getUnderlineStyle() === 4],
  ["4:5", (c) => c.getUnderlineStyle() === 5],
  ["53", (c) => c.isOverline() !== 0],
];

/** xterm's colour modes (IBufferCell.getFgColorMode). */
const MODE_P16 = 0x1000000;
const MODE_P256 = 0x2000000;
const MODE_RGB = 0x3000000;

function colour(mode: number, value: number, base: 30 | 40): number[] {
  switch (mode) {
    case MODE_P16:
      return [value < 8 ? base + value : base + 60 + value - 8];
    case MODE_P256:
      return [base + 8, 5, value];
    case MODE_RGB:
      return [base + 8, 2, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
    default:
      return [base + 9];
  }
}

interface Style {
  attributes: string[];
  fg: string;
  bg: string;
  /** The underline's colour as SGR 58 parameters; "" for the default, which tmux never writes. */
  underline: string;
}

const DEFAULT_STYLE: Style = { attributes: [], fg: "39", bg: "49", underline: "" };

/**
 * tmux -e (grid_string_cells_code): escapes only where the style changes from
 * the cell before, carried from line to line; a removed attribute (or an
 * underline colour back to the default) starts over with 0 and restates both
 * colours and any underline colour. No reset at the end of a line.
 */
class SgrRuns {
  #last: Style = DEFAULT_STYLE;

  line(row: IBufferLine, cell: IBufferCell): string {
    let out = "";
    const used = usedCells(row, cell);
    for (let x = 0; x < used; x++) {
      if (!row.getCell(x, cell) || cell.getWidth() === 0) continue;
      out += this.#change(styleOf(cell as Cell)) + (cell.getChars() || " ");
    }
    return out;
  }

  #change(style: Style): string {
    const last = this.#last;
    this.#last = style;
    const removed = last.attributes.some((code) => !style.attributes.includes(code)) || (last.underline !== "" && style.underline === "");
    const codes = removed ? ["0", ...style.attributes] : style.attributes.filter((code) => !last.attributes.includes(code));
    let out = codes.length > 0 ? `\x1b[${codes.join(";")}m` : "";
    if (removed || style.fg !== last.fg) out += `\x1b[${style.fg}m`;
    if (removed || style.bg !== last.bg) out += `\x1b[${style.bg}m`;
    if (style.underline !== "" && (removed || style.underline !== last.underline)) out += `\x1b[${style.underline}m`;
    return out;
  }
}

function styleOf(cell: Cell): Style {
  return {
    attributes: ATTRIBUTES.filter(([, isSet]) => isSet(cell)).map(([code]) => code),
    fg: colour(cell.getFgColorMode(), cell.getFgColor(), 30).join(";"),
    bg: colour(cell.getBgColorMode(), cell.getBgColor(), 40).join(";"),
    underline: cell.hasExtendedAttrs() ? underlineColour(cell.getUnderlineColorMode(), cell.getUnderlineColor()) : "",
  };
}

/**
 * SGR 58 as tmux writes it (grid_string_cells_us): a palette index or RGB; ""
 * for the default. xterm keeps SGR 59 (back to the default) as RGB white with
 * every bit set, the same as an explicit 58;2;255;255;255: that white is
 * taken as the default, the far more common of the two.
 */
function underlineColour(mode: number, value: number): string {
  if (mode === MODE_P16 || mode === MODE_P256) return `58;5;${value}`;
  if (mode === MODE_RGB && value !== 0xffffff) return `58;2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`;
  return "";
}
