import { AltScreenFilter } from "./altscreen.js";
import { StatusGuard } from "./status-guard.js";
import { CLEAR, type OuterTerminal, RESET_MODES } from "./terminal.js";

/** How long output that might start a screen switch is held before it is shown as it is. */
const HOLD_MS = 20;

/** The status line below the pane (tmux's status bar), when it is on. */
export interface StatusBar {
  /** The pane's rows: the outer terminal's, less the status line. */
  paneRows(): number;
  /** Escape sequences that draw the status line on the outer terminal's last row. */
  draw(): string;
  /** The pane's output erased the status line. */
  erased(): void;
}

/**
 * What a pane sends, on the outer terminal: whole screens from the server and
 * live output, with the pane's own screen switches kept off the outer terminal
 * (see altscreen.ts), and, with a status line, the pane kept above it (see status-guard.ts).
 */
export class PaneDisplay {
  readonly #filter = new AltScreenFilter();
  readonly #guard: StatusGuard | undefined;
  #holdTimer: NodeJS.Timeout | undefined;

  /** @param showing whether held output may still be shown when its wait is over */
  constructor(
    private readonly terminal: OuterTerminal,
    private readonly showing: () => boolean,
    private readonly status?: StatusBar,
  ) {
    this.#guard = status && new StatusGuard(() => status.paneRows());
  }

  /** Live output; returns true when the pane left its alternate screen, and the rest must come from the server. */
  output(data: string): boolean {
    const { text, leftAlternate } = this.#filter.feed(data);
    this.#write(text);
    clearTimeout(this.#holdTimer);
    if (!leftAlternate && (this.#filter.holding || this.#guard?.held)) {
      this.#holdTimer = setTimeout(() => {
        if (this.showing()) this.terminal.write(this.#guarded(this.#filter.flush()) + (this.#guard?.flush() ?? ""));
      }, HOLD_MS);
    }
    return leftAlternate;
  }

  /** A whole screen from the server replaces what is shown (modes of the previous pane reset first). */
  screen(screen: string): void {
    clearTimeout(this.#holdTimer);
    this.#filter.reset();
    this.#guard?.reset();
    const { text } = this.#filter.feed(screen);
    const body = this.#guarded(`${text}${this.#filter.flush()}`, false) + (this.#guard?.flush() ?? "");
    // The scroll region first (setting it moves the cursor home, where the screen starts); the status line last, as
    // the screen erases the outer one, between a save and a restore of the cursor (and pen) the screen left.
    const region = this.#guard?.region() ?? "";
    const status = this.status ? `\x1b7${this.status.draw()}\x1b8` : "";
    this.terminal.write(`${RESET_MODES}${CLEAR}${region}${body}${status}`);
  }

  dispose(): void {
    clearTimeout(this.#holdTimer);
  }

  #write(text: string): void {
    this.terminal.write(this.#guarded(text));
  }

  /** Pane output kept above the status line; `report` says when it erased it (not for a screen that draws it anyway). */
  #guarded(text: string, report = true): string {
    if (!this.#guard) return text;
    const { text: kept, erased } = this.#guard.feed(text);
    if (erased && report) this.status?.erased();
    return kept;
  }
}
