/** Keys as a terminal sends them, and the prefix key that starts a venom-mux command (tmux's C-b). */

export const ESC = "\x1b";

/** Keys the attach UI reacts to, as the bytes a terminal sends for them. */
export const Key = {
  enter: "\r",
  newline: "\n",
  escape: ESC,
  backspace: "\x7f",
  ctrlH: "\b",
  ctrlC: "\x03",
  ctrlU: "\x15",
  up: ["\x1b[A", "\x1bOA"],
  down: ["\x1b[B", "\x1bOB"],
} as const;

export class PrefixError extends Error {
  override readonly name = "PrefixError";
}

/** Control keys a prefix must not take: they are flow control, or the terminal's own Escape/Enter. */
const REFUSED: Record<string, string> = {
  s: "C-s is XOFF: terminals use it to pause output (flow control), so it cannot be the prefix",
  q: "C-q is XON: terminals use it to resume output (flow control), so it cannot be the prefix",
  "[": "C-[ is Escape: every arrow and function key starts with it, so it cannot be the prefix",
  m: "C-m is Enter, so it cannot be the prefix",
  j: "C-j is a newline (Enter on some terminals), so it cannot be the prefix",
};

/**
 * The byte a prefix setting names: tmux's "C-b" (or "^b"), or one printable
 * character such as "`". XON/XOFF (C-s, C-q) and keys that would break typing
 * (Escape, Enter) are refused with the reason.
 */
export function parsePrefix(setting: string): string {
  const ctrl = /^(?:C-|\^)(.)$/.exec(setting);
  if (ctrl) {
    const key = (ctrl[1] as string).toLowerCase();
    const refused = REFUSED[key];
    if (refused) throw new PrefixError(`"${setting}": ${refused}; choose another, e.g. "C-b" or "C-a"`);
    if (!/^[a-z@\\\]^_ ]$/.test(key)) throw new PrefixError(`"${setting}" is not a control key; write it like "C-b" or "C-a"`);
    return String.fromCharCode(key.toUpperCase().charCodeAt(0) & 0x1f);
  }
  if (/^[!-~]$/.test(setting)) return setting;
  throw new PrefixError(
    `"${setting}" is not a key venom-mux can use as the prefix; write it like "C-b" or "C-a", or one printable character`,
  );
}

/** How a prefix byte is written back to the user, tmux-style ("C-b"). */
export function describePrefix(prefix: string): string {
  const code = prefix.charCodeAt(0);
  return code < 0x20 ? `C-${String.fromCharCode(code | 0x60)}` : prefix;
}

/**
 * The length of the key that starts at `text[at]`: an escape sequence (CSI,
 * SS3, or Meta plus a character) counts as one key, a lone Escape at the end of
 * what arrived is the Escape key, anything else is one character.
 */
export function keyLength(text: string, at = 0): number {
  if (text[at] !== ESC) return (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
  const next = text[at + 1];
  if (next === undefined) return 1;
  if (next === "[") {
    let i = at + 2;
    while (i < text.length && /[\x20-\x3f]/.test(text[i] as string)) i++;
    return Math.min(i + 1, text.length) - at;
  }
  if (next === "O" && at + 2 < text.length) return 3;
  return 2;
}

/** Split what arrived into keys (see keyLength). */
export function splitKeys(text: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = keyLength(text, i);
    keys.push(text.slice(i, i + n));
    i += n;
  }
  return keys;
}

export type PrefixStep =
  /** Bytes for the pane, as typed. */
  | { kind: "send"; data: string }
  /** The key typed after the prefix (the prefix itself when pressed twice). */
  | { kind: "command"; key: string }
  /** The prefix was the last thing that arrived: its key comes with the next input. */
  | { kind: "pending" };

/**
 * Reads typed input: everything goes to the pane except the prefix and the one
 * key after it, which is a venom-mux command. The state survives between reads,
 * so a prefix and its key may arrive separately.
 */
export class PrefixReader {
  #afterPrefix = false;

  constructor(readonly prefix: string) {}

  /** Take the next step from `text`; returns it and what is left. */
  next(text: string): { step: PrefixStep; rest: string } {
    if (this.#afterPrefix) {
      if (text === "") return { step: { kind: "pending" }, rest: "" };
      const n = keyLength(text);
      this.#afterPrefix = false;
      return { step: { kind: "command", key: text.slice(0, n) }, rest: text.slice(n) };
    }
    const at = text.indexOf(this.prefix);
    if (at === -1) return { step: { kind: "send", data: text }, rest: "" };
    if (at > 0) return { step: { kind: "send", data: text.slice(0, at) }, rest: text.slice(at) };
    this.#afterPrefix = true;
    return this.next(text.slice(this.prefix.length));
  }

  /** Forget a prefix typed without its key yet (e.g. when the UI changes mode). */
  reset(): void {
    this.#afterPrefix = false;
  }
}
