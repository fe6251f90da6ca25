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

/**
 * `markdown` with every paragraph or list item that has a line over `width` filled again as a whole (so no word is
 * left alone on a line); one whose lines all fit is left as written.
 */
export function wrapMarkdown(markdown: string, width = PROSE_WIDTH): string {
  const out: string[] = [];
  let block: string[] = [];
  const end = () => {
    if (block.length === 0) return;
    const [first = ""] = block;
    if (block.every((line) => line.length <= width)) out.push(...block);
    else {
      const item = LIST_ITEM.exec(first);
      const lead = item ? item[0] : (/^\s*/.exec(first)?.[0] ?? "");
      const rest = item ? " ".repeat(lead.length) : lead;
      out.push(...fill(lead, rest, block.map((line, i) => (i === 0 ? line.slice(lead.length) : line.trim())).join(" "), width));
    }
    block = [];
  };
  let fenced = false;
  for (const line of markdown.split("\n")) {
    const fence = /^\s*```/.test(line);
    if (fence || fenced || verbatim(line)) {
      end();
      if (fence) fenced = !fenced;
      out.push(line);
      continue;
    }
    if (LIST_ITEM.test(line)) end();
    block.push(line);
  }
  end();
  return out.join("\n");
}
