/**
 * With a status line, the pane has one row less than the outer terminal, and
 * the outer terminal's scroll region is set to the pane's rows. The pane's
 * output is passed through as it is, except what would reach past its rows:
 * resetting or widening the scroll region is kept to the pane's rows, and
 * absolute moves to a row below them stop at its last row. Erasing to the end of
 * the screen (`\e[J`, `\e[2J`, DECALN, a soft reset) also erases the status
 * line: that is reported, and the caller draws it again.
 */

/** One control sequence: ESC [ then parameters, intermediates and a final byte; or ESC # 8 (DECALN). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is this module's purpose.
const SEQUENCE = /\x1b(?:\[([?>=!]?)([\d;:]*)([ -/]*)([@-~])|#8)/g;
/** A sequence cut at the end of a chunk: held until the next one completes it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
const PARTIAL = /\x1b(?:\[[?>=!]?[\d;:]*[ -/]*|#)?$/;
/** A partial sequence is never longer than this; anything longer is passed on as it is. */
const MAX_HELD = 64;

export interface Guarded {
  text: string;
  /** Something in it erased the status line. */
  erased: boolean;
}

export class StatusGuard {
  #held = "";

  /** @param rows the pane's rows (the outer terminal's, less the status line) */
  constructor(private readonly rows: () => number) {}

  /** The scroll region that keeps the pane's output off the status line. */
  region(): string {
    return `\x1b[1;${this.rows()}r`;
  }

  /** Whether a partial sequence is held back. */
  get held(): boolean {
    return this.#held !== "";
  }

  reset(): void {
    this.#held = "";
  }

  /** What is held back, given up on: a sequence that never completed is passed on as it is. */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }

  feed(data: string): Guarded {
    let text = this.#held + data;
    this.#held = "";
    if (!text.includes("\x1b")) return { text, erased: false };
    const partial = PARTIAL.exec(text);
    if (partial && text.length - partial.index <= MAX_HELD) {
      this.#held = text.slice(partial.index);
      text = text.slice(0, partial.index);
    }
    let erased = false;
    const rows = this.rows();
    const out = text.replace(SEQUENCE, (whole, prefix: string | undefined, params: string, inter: string, final: string) => {
      if (final === undefined) {
        erased = true; // DECALN fills the whole screen with E.
        return whole;
      }
      const numbers = params.split(";").map((p) => (p === "" ? 0 : Number.parseInt(p, 10)));
      if (prefix === "!" && final === "p" && params === "" && inter === "") {
        // A soft reset also resets the scroll region.
        erased = true;
        return `${whole}${this.region()}`;
      }
      if (prefix !== "" || inter !== "") {
        if (prefix === "?" && final === "J") erased ||= (numbers[0] ?? 0) !== 1 && (numbers[0] ?? 0) !== 3;
        return whole;
      }
      switch (final) {
        case "r": {
          const top = numbers[0] || 1;
          const bottom = Math.min(numbers[1] || rows, rows);
          return `\x1b[${top};${bottom}r`;
        }
        case "H":
        case "f":
          return (numbers[0] ?? 0) > rows ? `\x1b[${rows};${numbers[1] || 1}${final}` : whole;
        case "d":
          return (numbers[0] ?? 0) > rows ? `\x1b[${rows}d` : whole;
        case "J":
          erased ||= (numbers[0] ?? 0) !== 1 && (numbers[0] ?? 0) !== 3;
          return whole;
        default:
          return whole;
      }
    });
    return { text: out, erased };
  }
}
