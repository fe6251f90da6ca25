/**
 * tmux key names (key-string.c) and the bytes a pane's program gets for them
 * (input-keys.c), for the modes the program set and the pane's TERM
 * (xterm-256color): cursor keys and Home/End in application cursor mode
 * (DECCKM) are SS3 (`\eOA`), the keypad in application keypad mode (DECKPAM)
 * sends SS3 codes, and modifiers are xterm's `CSI 1;m X` / `CSI n;m ~`.
 */

/** What the program set, as the screen model saw it. */
export interface KeyModes {
  applicationCursor: boolean;
  applicationKeypad: boolean;
  bracketedPaste: boolean;
}

interface Modifiers {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

/** A key: one tmux name (without modifiers), or one character, with its modifiers. */
export interface Key extends Modifiers {
  name: string;
}

/** Cursor keys: CSI or SS3 final. */
const CURSOR: Record<string, string> = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" };
/** Keys sent as CSI n ~. */
const TILDE: Record<string, number> = {
  ic: 2,
  insert: 2,
  dc: 3,
  delete: 3,
  ppage: 5,
  pageup: 5,
  pgup: 5,
  npage: 6,
  pagedown: 6,
  pgdn: 6,
  f5: 15,
  f6: 17,
  f7: 18,
  f8: 19,
  f9: 20,
  f10: 21,
  f11: 23,
  f12: 24,
};
/** F1–F4: SS3 P–S unmodified, CSI 1;m P–S modified. */
const PF: Record<string, string> = { f1: "P", f2: "Q", f3: "R", f4: "S" };
/** Keys that are one character. */
const PLAIN: Record<string, string> = { enter: "\r", escape: "\x1b", tab: "\t", space: " ", bspace: "\x7f" };
/** The keypad: its character in numeric mode, its SS3 final in application keypad mode. */
const KEYPAD: Record<string, [string, string]> = {
  "kp/": ["/", "o"],
  "kp*": ["*", "j"],
  "kp-": ["-", "m"],
  "kp+": ["+", "k"],
  "kp.": [".", "n"],
  kpenter: ["\n", "M"],
  ...Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`kp${n}`, [String(n), String.fromCharCode(0x70 + n)]])),
};

/** Every key name venom-mux knows, as tmux spells them (case does not matter, as in tmux). */
const NAMES = new Set([
  ...Object.keys(CURSOR),
  ...Object.keys(TILDE),
  ...Object.keys(PF),
  ...Object.keys(PLAIN),
  ...Object.keys(KEYPAD),
  "btab",
]);

/**
 * A tmux key name: `Enter`, `F5`, `NPage`, `C-c`, `M-x`, `S-Left`, `C-M-Up`,
 * `^C`; undefined when `arg` is not one (then it is text to type).
 */
export function parseKey(arg: string): Key | undefined {
  const key: Key = { name: arg, ctrl: false, meta: false, shift: false };
  let rest = arg;
  for (let m = /^([CMS])-(.+)$/s.exec(rest); m; m = /^([CMS])-(.+)$/s.exec(rest)) {
    if (m[1] === "C") key.ctrl = true;
    else if (m[1] === "M") key.meta = true;
    else key.shift = true;
    rest = m[2] as string;
  }
  const caret = rest.length === 2 && rest[0] === "^" ? rest[1] : undefined;
  if (caret !== undefined) {
    key.ctrl = true;
    rest = caret;
  }
  const modified = key.ctrl || key.meta || key.shift;
  if (NAMES.has(rest.toLowerCase())) return { ...key, name: rest.toLowerCase() };
  // A single character is a key only with a modifier (`C-c`, `M-x`): alone it is text.
  if (modified && [...rest].length === 1) return { ...key, name: rest };
  return undefined;
}

/** Does `arg` look like a key name that is not one (`C-Foo`, `F13`)? Then it is a mistake, not text. */
export function malformedKey(arg: string): boolean {
  return parseKey(arg) === undefined && (/^(?:[CMS]-)+./s.test(arg) || /^F\d+$/i.test(arg));
}

/** The bytes the program gets for `key` in `modes`. */
export function encodeKey(key: Key, modes: KeyModes): string {
  const mod = 1 + (key.shift ? 1 : 0) + (key.meta ? 2 : 0) + (key.ctrl ? 4 : 0);
  const { name } = key;
  const cursor = CURSOR[name];
  if (cursor !== undefined) {
    if (mod > 1) return `\x1b[1;${mod}${cursor}`;
    return modes.applicationCursor ? `\x1bO${cursor}` : `\x1b[${cursor}`;
  }
  const tilde = TILDE[name];
  if (tilde !== undefined) return mod > 1 ? `\x1b[${tilde};${mod}~` : `\x1b[${tilde}~`;
  const pf = PF[name];
  if (pf !== undefined) return mod > 1 ? `\x1b[1;${mod}${pf}` : `\x1bO${pf}`;
  if (name === "btab") return "\x1b[Z";
  const keypad = KEYPAD[name];
  if (keypad !== undefined) return meta(key, modes.applicationKeypad ? `\x1bO${keypad[1]}` : keypad[0]);
  const plain = PLAIN[name];
  if (plain !== undefined) {
    if (name === "tab" && key.shift) return "\x1b[Z";
    if (name === "space" && key.ctrl) return meta(key, "\0");
    return meta(key, plain);
  }
  return meta(key, key.ctrl ? control(name) : key.shift ? name.toUpperCase() : name);
}

/** Meta is Escape first, as xterm sends it with metaSendsEscape (and tmux does). */
function meta(key: Key, bytes: string): string {
  return key.meta ? `\x1b${bytes}` : bytes;
}

/** C-x for one character: its control code where there is one (C-a is 0x01, C-@ and C-Space 0x00, C-? DEL). */
function control(char: string): string {
  if (char === "?") return "\x7f";
  if (char === " " || char === "@" || char === "2") return "\0";
  const upper = char.toUpperCase();
  const code = upper.charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f);
  // tmux's mapping of digits and a few symbols to the control codes of a VT100 keyboard.
  const vt: Record<string, string> = {
    "3": "\x1b",
    "4": "\x1c",
    "5": "\x1d",
    "6": "\x1e",
    "7": "\x1f",
    "8": "\x7f",
    "/": "\x1f",
    "-": "\x1f",
  };
  return vt[char] ?? char;
}

/** Text as a paste: LF becomes CR (tmux paste-buffer), bracketed when the program asked for it, never with an end marker inside. */
export function pasteBytes(text: string, modes: KeyModes): string {
  const body = text.replace(/\r?\n/g, "\r");
  if (!modes.bracketedPaste) return body;
  return `\x1b[200~${body.replaceAll("\x1b[201~", "")}\x1b[201~`;
}
