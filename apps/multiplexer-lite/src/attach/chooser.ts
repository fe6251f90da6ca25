import { type PaneInfo, terminalSafe } from "@venom/proto";
import { describePane } from "../commands/ls.js";
import { fitCells } from "./cells.js";
import { Key } from "./keys.js";
import type { Overlay, OverlayResult } from "./overlay.js";

const HELP = "choose a pane: ↑/↓ or j/k move, Enter attaches, a digit picks by index, q or Escape cancels";

/** tmux's choose-tree for panes (prefix w): the running panes, one a line, the current one marked. */
export class Chooser implements Overlay {
  #selected: number;

  constructor(
    readonly panes: readonly PaneInfo[],
    readonly current: string | undefined,
  ) {
    this.#selected = Math.max(
      0,
      panes.findIndex((p) => p.id === current),
    );
  }

  get selected(): PaneInfo | undefined {
    return this.panes[this.#selected];
  }

  render(cols: number, rows: number): string {
    const lines = [HELP, ""];
    const room = Math.max(1, rows - lines.length);
    // Keep the selected line in view when there are more panes than rows.
    const first = Math.max(0, Math.min(this.#selected - room + 1, this.panes.length - room));
    const shown = this.panes.slice(first, first + room);
    let out = "\x1b[?25l\x1b[0m\x1b[H\x1b[2J";
    lines.forEach((line, row) => {
      out += `\x1b[${row + 1};1H\x1b[1m${fitCells(line, cols)}\x1b[0m`;
    });
    shown.forEach((pane, i) => {
      const at = first + i;
      const mark = pane.id === this.current ? "*" : " ";
      const text = fitCells(terminalSafe(`${mark} (${pane.index}) ${describePane(pane)}`, { singleLine: true }), cols);
      const style = at === this.#selected ? "\x1b[7m" : "";
      out += `\x1b[${lines.length + i + 1};1H${style}${text}\x1b[0m`;
    });
    if (this.panes.length === 0) out += `\x1b[${lines.length + 1};1H(no running panes)`;
    return out;
  }

  key(key: string): OverlayResult {
    const last = this.panes.length - 1;
    if (key === "k" || (Key.up as readonly string[]).includes(key)) {
      this.#selected = Math.max(0, this.#selected - 1);
      return { kind: "stay" };
    }
    if (key === "j" || (Key.down as readonly string[]).includes(key)) {
      this.#selected = Math.max(0, Math.min(last, this.#selected + 1));
      return { kind: "stay" };
    }
    if (key === Key.enter || key === Key.newline) {
      const pane = this.selected;
      return pane ? { kind: "choose", pane: pane.id } : { kind: "close" };
    }
    if (/^[0-9]$/.test(key)) {
      const pane = this.panes.find((p) => p.index === Number(key));
      return pane ? { kind: "choose", pane: pane.id } : { kind: "stay" };
    }
    if (key === "q" || key === Key.escape || key === Key.ctrlC) return { kind: "close" };
    return { kind: "stay" };
  }
}
