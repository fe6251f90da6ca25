import type { IBufferCell, IBufferLine, Terminal } from "@xterm/headless";

export interface CaptureOptions {
  /** tmux -S: 0 is the top visible line, negative reaches into scrollback. */
  start?: number | undefined;
  /** tmux -E: inclusive; default the last visible line. */
  end?: number | undefined;
  /** tmux -e: keep colours and attributes as SGR escapes. */
  escapes?: boolean | undefined;
  /** tmux -J: join wrapped lines and keep trailing spaces. */
  join?: boolean | undefined;
}

/**
 * `capture-pane -p` semantics over the pane's screen model. Line numbers are
 * tmux's: 0 is the first visible line, -1 the newest line of scrollback; both
 * ends are clamped to what exists, as tmux does.
 */
export function capture(terminal: Terminal, options: CaptureOptions = {}): string {
  const buffer = terminal.buffer.active;
  const history = buffer.baseY;
  const first = Math.max(0, history + (options.start ?? 0));
  const last = Math.min(buffer.length - 1, history + (options.end ?? terminal.rows - 1));
  const lines: string[] = [];
  const cell = buffer.getNullCell();
  for (let y = first; y <= last; y++) {
    const line = buffer.getLine(y);
    if (!line) continue;
    const next = buffer.getLine(y + 1);
    const joinNext = options.join === true && y < last && next?.isWrapped === true;
    const text = options.escapes ? withEscapes(line, terminal.cols, cell) : line.translateToString(!options.join);
    if (options.join && line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
    if (!joinNext && options.join) lines[lines.length - 1] = (lines.at(-1) as string).replace(/ +$/, "");
  }
  return `${lines.join("\n")}\n`;
}

/** One line with SGR escapes wherever the attributes change, reset at the end (tmux -e). */
function withEscapes(line: IBufferLine, cols: number, cell: IBufferCell): string {
  let out = "";
  let current = "0";
  let pendingSpaces = "";
  for (let x = 0; x < cols; x++) {
    if (!line.getCell(x, cell) || cell.getWidth() === 0) continue;
    const sgr = sgrOf(cell);
    const chars = cell.getChars() || " ";
    if (chars === " " && sgr === "0") {
      pendingSpaces += " ";
      continue;
    }
    if (sgr !== current) {
      out += `${pendingSpaces}\x1b[${sgr === "0" ? "0" : `0;${sgr}`}m`;
      pendingSpaces = "";
      current = sgr;
    }
    out += pendingSpaces + chars;
    pendingSpaces = "";
  }
  return current === "0" ? out : `${out}\x1b[0m`;
}

function sgrOf(cell: IBufferCell): string {
  const codes: (number | string)[] = [];
  if (cell.isBold()) codes.push(1);
  if (cell.isDim()) codes.push(2);
  if (cell.isItalic()) codes.push(3);
  if (cell.isUnderline()) codes.push(4);
  if (cell.isBlink()) codes.push(5);
  if (cell.isInverse()) codes.push(7);
  if (cell.isInvisible()) codes.push(8);
  if (cell.isStrikethrough()) codes.push(9);
  codes.push(...color(cell.isFgDefault(), cell.isFgPalette(), cell.isFgRGB(), cell.getFgColor(), 30));
  codes.push(...color(cell.isBgDefault(), cell.isBgPalette(), cell.isBgRGB(), cell.getBgColor(), 40));
  return codes.length === 0 ? "0" : codes.join(";");
}

function color(isDefault: boolean, isPalette: boolean, isRgb: boolean, value: number, base: 30 | 40): (number | string)[] {
  if (isDefault) return [];
  if (isPalette) {
    if (value < 8) return [base + value];
    if (value < 16) return [base + 60 + value - 8];
    return [`${base + 8};5;${value}`];
  }
  if (isRgb) return [`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`];
  return [];
}
