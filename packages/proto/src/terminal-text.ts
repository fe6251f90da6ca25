// Text an agent, a program or a repository controls (a pane's name, a
// command line, a path, a key from a project config) is shown to a person on
// a terminal. Raw, its control characters could move the cursor, rewrite a
// line, set a title or a clipboard, and a bidi override could make it read
// differently from what runs. So every such text is escaped before display,
// and a long text is cut in the middle, never at its end, where the part that
// matters (`; rm -rf ~`) tends to be.

/**
 * C0 controls (all but newline and tab), DEL, C1 controls, and the Unicode
 * format characters that reorder or hide text: bidi embeddings, overrides and
 * isolates, directional marks, and the line and paragraph separators.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's purpose.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, with newline too.
const UNSAFE_IN_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character written as a visible `\uXXXX` escape
 * (valid inside a JSON string too). Newlines stay unless `singleLine`. Safe
 * text passes unchanged, so escaping twice changes nothing.
 */
export function terminalSafe(text: string, options: { singleLine?: boolean } = {}): string {
  return text.replace(options.singleLine ? UNSAFE_IN_LINE : UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
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
