/**
 * The outer terminal has two screens: its normal one holds the user's shell
 * (restored on detach), its alternate one shows the pane. A pane's own
 * alternate-screen switches must therefore never reach the outer terminal:
 * entering becomes a clear of the screen, leaving becomes a redraw of the pane's
 * normal screen from the server's model (the outer terminal no longer has it).
 */

/** DEC private modes that switch screens: 47, 1047 and 1049 (xterm). */
const SCREEN_MODES = new Set(["47", "1047", "1049"]);
/** A partial sequence held at the end of a chunk is never longer than this. */
const MAX_HELD = 32;
const ESC = "\x1b";
const PRIVATE_MODE = "\x1b[?";
/** Could `tail` be the start of `CSI ? Pm h|l` or of RIS? Then it is held until the next chunk says. */
function partial(tail: string): boolean {
  return tail.length < MAX_HELD && (tail === ESC || (tail[1] === "[" && /^\??[\d;]*$/.test(tail.slice(2))));
}

export interface Filtered {
  /** What the outer terminal may show. */
  text: string;
  /** The pane left its alternate screen: what followed was dropped, redraw from the server. */
  leftAlternate: boolean;
}

export class AltScreenFilter {
  /** Whether the pane is on its alternate screen, as far as its output said. */
  alternate = false;
  #held = "";

  /** Bytes held back because they might start a screen switch. */
  get holding(): boolean {
    return this.#held !== "";
  }

  /** Start over, as for a fresh screen from the server (which starts on the normal screen). */
  reset(): void {
    this.alternate = false;
    this.#held = "";
  }

  /** Give up waiting for the rest of a held sequence: it was not a screen switch. */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }

  feed(data: string): Filtered {
    const text = this.#held + data;
    this.#held = "";
    // Fast path: most output has no private mode and no reset at all.
    if (!text.includes("\x1b")) return { text, leftAlternate: false };
    let out = "";
    let from = 0;
    for (let at = text.indexOf("\x1b", from); at !== -1; at = text.indexOf("\x1b", from)) {
      const tail = text.slice(at);
      if (partial(tail)) {
        this.#held = tail;
        return { text: out + text.slice(from, at), leftAlternate: false };
      }
      if (text[at + 1] === "c") {
        // RIS (full reset) would also take the outer terminal off its alternate screen.
        out += text.slice(from, at);
        from = at + 2;
        if (this.alternate) {
          this.alternate = false;
          return { text: out, leftAlternate: true };
        }
        out += "\x1b[!p\x1b[H\x1b[2J";
        continue;
      }
      const mode = tail.startsWith(PRIVATE_MODE) ? /^([\d;]*)([hl])/.exec(tail.slice(PRIVATE_MODE.length)) : null;
      if (!mode) {
        out += text.slice(from, at + 1);
        from = at + 1;
        continue;
      }
      out += text.slice(from, at);
      from = at + PRIVATE_MODE.length + mode[0].length;
      const params = (mode[1] as string).split(";");
      const others = params.filter((p) => !SCREEN_MODES.has(p));
      if (others.length === params.length) {
        out += PRIVATE_MODE + mode[0];
        continue;
      }
      if (others.length > 0) out += `\x1b[?${others.join(";")}${mode[2]}`;
      if (mode[2] === "h") {
        if (!this.alternate) out += "\x1b[2J";
        this.alternate = true;
      } else if (this.alternate) {
        this.alternate = false;
        return { text: out, leftAlternate: true };
      }
    }
    return { text: out + text.slice(from), leftAlternate: false };
  }
}
