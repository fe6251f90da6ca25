import { AltScreenFilter } from "./altscreen.js";
import { CLEAR, type OuterTerminal, RESET_MODES } from "./terminal.js";

/** How long output that might start a screen switch is held before it is shown as it is. */
const HOLD_MS = 20;

/**
 * What a pane sends, on the outer terminal: whole screens from the server and
 * live output, with the pane's own screen switches kept off the outer terminal
 * (see altscreen.ts).
 */
export class PaneDisplay {
  readonly #filter = new AltScreenFilter();
  #holdTimer: NodeJS.Timeout | undefined;

  /** @param showing whether held output may still be shown when its wait is over */
  constructor(
    private readonly terminal: OuterTerminal,
    private readonly showing: () => boolean,
  ) {}

  /** Live output; returns true when the pane left its alternate screen, and the rest must come from the server. */
  output(data: string): boolean {
    const { text, leftAlternate } = this.#filter.feed(data);
    this.terminal.write(text);
    clearTimeout(this.#holdTimer);
    if (!leftAlternate && this.#filter.holding) {
      this.#holdTimer = setTimeout(() => {
        if (this.showing()) this.terminal.write(this.#filter.flush());
      }, HOLD_MS);
    }
    return leftAlternate;
  }

  /** A whole screen from the server replaces what is shown (modes of the previous pane reset first). */
  screen(screen: string): void {
    clearTimeout(this.#holdTimer);
    this.#filter.reset();
    const { text } = this.#filter.feed(screen);
    this.terminal.write(`${RESET_MODES}${CLEAR}${text}${this.#filter.flush()}`);
  }

  dispose(): void {
    clearTimeout(this.#holdTimer);
  }
}
