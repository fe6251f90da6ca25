import { fitCells, fitCellsFromEnd } from "./cells.js";

/**
 * Something the attach UI draws over the pane (the `w` chooser, the `:` prompt,
 * a message). While one is shown, typed keys go to it, not to the pane, and the
 * pane's output is not drawn; when it closes, the pane is redrawn from the server.
 */
export interface Overlay {
  /** Escape sequences that draw it on a terminal of cols × rows. */
  render(cols: number, rows: number): string;
  /** One key typed while it is shown (see keys.ts, keyLength). */
  key(key: string): OverlayResult;
}

export type OverlayResult =
  /** Still open: draw it again. */
  | { kind: "stay" }
  /** Closed: redraw the pane. */
  | { kind: "close" }
  /** Closed, and the key that closed it is typed again as if no overlay had been there. */
  | { kind: "replay"; key: string }
  /** Closed by choosing a pane to attach. */
  | { kind: "choose"; pane: string }
  /** Closed by a command line to run (the prompt's Enter). */
  | { kind: "run"; line: string };

/** Style of the bottom line, like tmux's message-style: black on yellow. */
const LINE_STYLE = "\x1b[0;30;43m";

/**
 * Draw `text` on the last row in the message style; with `cursor` (a prompt being typed) the cursor is left after the
 * text and a text too long shows its end, else its start.
 */
export function bottomLine(cols: number, rows: number, text: string, cursor: boolean): string {
  const visible = cursor ? fitCellsFromEnd(text, cols - 1) : fitCells(text, cols - 1);
  return `\x1b[${rows};1H${LINE_STYLE}\x1b[2K${visible}${cursor ? "\x1b[?25h" : "\x1b[?25l"}`;
}

/** A message on the bottom line until a key is typed (the key then does what it would have done) or a timeout. */
export class Message implements Overlay {
  constructor(readonly text: string) {}

  render(cols: number, rows: number): string {
    return bottomLine(cols, rows, this.text, false);
  }

  key(key: string): OverlayResult {
    return { kind: "replay", key };
  }
}
