// Text an agent, a program or a repository controls (a pane's name, a
// command line, a path, a key from a project config) is shown to a person on
// a terminal. Raw, its control characters could move the cursor, rewrite a
// line, set a title or a clipboard, and a bidi override could make it read
// differently from what runs. So every such text is escaped before display,
// and a long text is cut in the middle, never at its end, where the part that
// matters (`; rm -rf ~`) tends to be.

/**
 * What is never shown raw: C0 controls (all but newline and tab), DEL, C1
 * controls, the line and paragraph separators, and every format (Cf) and
 * Default_Ignorable_Code_Point character. Those reorder text (bidi embeddings,
 * overrides, isolates, marks) or hide it: zero-width spaces and joiners, soft
 * hyphens, variation selectors, and the tag characters U+E0000-E007F that a
 * terminal shows as nothing and a model reads as the letters they shadow, so a
 * prompt approved as "summarize README.md" could carry an instruction nobody saw.
 */
const UNSAFE = String.raw`[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}]`;
/**
 * An emoji sequence, kept whole: a pictograph with its presentation selector
 * or skin tone, joined by ZWJ to the next (👨‍👩‍👧, ❤️). Its joiners and
 * selectors sit between visible pictographs, so they hide nothing; a ZWJ or a
 * selector anywhere else is escaped.
 */
const EMOJI = String.raw`\p{Extended_Pictographic}(?:[\ufe0e\ufe0f]|\p{Emoji_Modifier})*(?:\u200d\p{Extended_Pictographic}(?:[\ufe0e\ufe0f]|\p{Emoji_Modifier})*)*`;
const SHOWN = new RegExp(`(${EMOJI})|${UNSAFE}`, "gu");
const SHOWN_IN_LINE = new RegExp(`(${EMOJI})|${UNSAFE}|\n`, "gu");
/** Printable ASCII, tab and newline only: nothing to escape (most text, and found far faster than by SHOWN). */
const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** Text as a terminal may show it, and how many characters were escaped to make it so. */
export interface ShownText {
  text: string;
  escaped: number;
}

/**
 * `text` with every unsafe character written as a visible `\uXXXX` escape (a
 * character beyond U+FFFF as its two UTF-16 halves, `\udb40\udc41` for U+E0041,
 * so the escape stays valid inside a JSON string), and how many it escaped.
 * Newlines stay unless `singleLine`. Safe text passes unchanged, so escaping
 * twice changes nothing.
 */
export function terminalShown(text: string, options: { singleLine?: boolean } = {}): ShownText {
  if (PLAIN.test(text) && !(options.singleLine && text.includes("\n"))) return { text, escaped: 0 };
  let escaped = 0;
  const shown = text.replace(options.singleLine ? SHOWN_IN_LINE : SHOWN, (match, emoji: string | undefined) => {
    if (emoji !== undefined) return emoji;
    escaped++;
    return match
      .split("")
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join("");
  });
  return { text: shown, escaped };
}

/** `text` with every unsafe character escaped (terminalShown), for everything shown to a person. */
export function terminalSafe(text: string, options: { singleLine?: boolean } = {}): string {
  return terminalShown(text, options).text;
}

/** What a person is told beside a text that had characters escaped, e.g. "3 invisible or control characters shown escaped". */
export function escapedNote(count: number): string {
  return `${count} invisible or control character${count === 1 ? "" : "s"} shown escaped`;
}

/**
 * At most `max` characters: a longer text keeps its head and its tail, with
 * the cut marked between them and how much was left out. Cuts never split a
 * surrogate pair.
 */
export function cutMiddle(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const marker = (n: number) => ` …[${n} characters cut]… `;
  const room = Math.max(2, max - marker(chars.length).length);
  const head = Math.ceil(room / 2);
  const tail = room - head;
  return `${chars.slice(0, head).join("")}${marker(chars.length - room)}${chars.slice(chars.length - tail).join("")}`;
}

/** Untrusted text for one line of a terminal: escaped, and cut in the middle to `max` characters. */
export function terminalLine(text: string, max: number): string {
  return cutMiddle(terminalSafe(text, { singleLine: true }), max);
}
