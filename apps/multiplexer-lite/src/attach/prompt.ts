import { ESC, Key } from "./keys.js";
import { bottomLine, type Overlay, type OverlayResult } from "./overlay.js";

/**
 * tmux's command prompt on the bottom line: type a command, Enter runs it,
 * Escape or C-c cancels, Backspace deletes, C-u clears the line.
 */
export class Prompt implements Overlay {
  #text: string;

  /**
   * @param label shown before the text (":" for the command prompt)
   * @param toLine turns what was typed into the command line to run
   */
  constructor(
    readonly label = ":",
    initial = "",
    readonly toLine: (text: string) => string = (text) => text,
  ) {
    this.#text = initial;
  }

  get text(): string {
    return this.#text;
  }

  render(cols: number, rows: number): string {
    return bottomLine(cols, rows, `${this.label}${this.#text}`, true);
  }

  key(key: string): OverlayResult {
    switch (key) {
      case Key.enter:
      case Key.newline: {
        const text = this.#text.trim();
        return text === "" ? { kind: "close" } : { kind: "run", line: this.toLine(text) };
      }
      case Key.escape:
      case Key.ctrlC:
        return { kind: "close" };
      case Key.backspace:
      case Key.ctrlH:
        this.#text = [...this.#text].slice(0, -1).join("");
        return { kind: "stay" };
      case Key.ctrlU:
        this.#text = "";
        return { kind: "stay" };
      default:
        // Other control keys and escape sequences (arrows, function keys) are not text.
        if (key.startsWith(ESC) || isControl(key)) return { kind: "stay" };
        this.#text += key;
        return { kind: "stay" };
    }
  }
}

/** A yes/no question on the bottom line, shown as asked (tmux's confirm-before): `y` runs the command, any other key cancels. */
export class Confirm implements Overlay {
  constructor(
    readonly question: string,
    readonly line: string,
  ) {}

  render(cols: number, rows: number): string {
    return bottomLine(cols, rows, this.question, true);
  }

  key(key: string): OverlayResult {
    return key === "y" || key === "Y" ? { kind: "run", line: this.line } : { kind: "close" };
  }
}

function isControl(key: string): boolean {
  const code = key.codePointAt(0) ?? 0;
  return key.length === 1 && (code < 0x20 || code === 0x7f);
}
