/**
 * Markdown prose wrapped for people who read the file itself, not only its
 * rendering: paragraphs and list items fill lines of at most `width` columns.
 * Headings, tables, code (fenced or indented), HTML comments and blank lines
 * stay as they are, and a code span is never cut, so a `path` or a command
 * stays whole on one line. One wrapper for every generated doc (protocol.md,
 * conformance.md, benchmarks.md) and for the hand-written ones.
 */
export const PROSE_WIDTH = 118;

const LIST_ITEM = /^(\s{0,3})([-*]|\d+\.) /;

/** The words of a line, a code span (even one holding spaces) counting as one. */
function words(text: string): string[] {
  return text.match(/(?:`[^`]*`|[^\s`])+/g) ?? [];
}

function fill(first: string, rest: string, text: string, width: number): string[] {
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words(text)) {
    if (!empty && line.length + 1 + word.length > width) {
      out.push(line);
      line = rest + word;
    } else line += empty ? word : ` ${word}`;
    empty = false;
  }
  out.push(line);
  return out;
}

function verbatim(line: string): boolean {
  return line.trim() === "" || /^\s{4,}/.test(line) || /^\s*(#|\||<|>)/.test(line) || /^\s*(\*\*\*|---|___)\s*$/.test(line);
}

/** `markdown` with every prose line over `width` filled; what is already short enough is left as written. */
export function wrapMarkdown(markdown: string, width = PROSE_WIDTH): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || /^\s*```/.test(line) || line.length <= width || verbatim(line)) {
      out.push(line);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const marker = item[0];
      out.push(...fill(marker, " ".repeat(marker.length), line.slice(marker.length), width));
    } else out.push(...fill("", "", line, width));
  }
  return out.join("\n");
}
