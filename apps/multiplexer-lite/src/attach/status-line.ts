import { type PaneInfo, terminalSafe } from "@venom/proto";
import { cells, fitCells } from "./cells.js";

/** tmux's default status style: black on green. */
const STYLE = "\x1b[0;30;42m";
/** tmux cuts the pane title on the right to 21 cells (`#{=21:pane_title}`). */
const TITLE_CELLS = 21;

export interface StatusPanes {
  /** A label for the group of panes, like tmux's `[session]`: the daemon's workspace directory name. */
  label: string;
  /** The running panes, in index order. */
  panes: readonly PaneInfo[];
  current: string | undefined;
  last: string | undefined;
  /** What waits for the person, e.g. "[2 to approve]" (venom-orch's inbox): shown beside the label, never cut first. */
  notice?: string;
}

/** Text a program or an agent chose (names, titles), safe on one line of a terminal. */
const safe = (text: string) => terminalSafe(text, { singleLine: true });

/**
 * The status line's text, as tmux's default: `[label] 0:name* 1:name-` on the
 * left (with venom-orch's `[2 to approve]` after the label when questions wait) (`*` the pane shown, `-` the last one), the pane's title in quotes on the
 * right; fitted to `cols` cells, the title given up first.
 */
export function statusText({ label, panes, current, last, notice }: StatusPanes, cols: number): string {
  const windows = panes.map((p) => `${p.index}:${safe(p.name)}${p.id === current ? "*" : p.id === last ? "-" : ""}`);
  const left = `[${safe(label)}] ${notice ? `${notice} ` : ""}${windows.join(" ")}`;
  const title = panes.find((p) => p.id === current)?.title;
  const right = title ? `"${fitCells(safe(title), TITLE_CELLS)}"` : "";
  const room = cols - cells(left);
  if (right !== "" && room >= cells(right) + 1) return `${left}${" ".repeat(room - cells(right))}${right}`;
  const fitted = fitCells(left, cols);
  return fitted + " ".repeat(cols - cells(fitted));
}

/** Draw a status line's text on the bottom row of a terminal of `rows` rows (the cursor is left there: the caller moves it). */
export function renderStatus(text: string, rows: number): string {
  return `\x1b[${rows};1H${STYLE}${text}\x1b[0m`;
}
