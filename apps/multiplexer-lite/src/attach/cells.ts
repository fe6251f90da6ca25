import stringWidth from "string-width";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** How many terminal cells `text` takes (wide characters and emoji two, combining marks none). */
export function cells(text: string): number {
  return stringWidth(text);
}

/** The head of `text` that fits in `max` cells, never splitting a character (or an emoji sequence) in two. */
export function fitCells(text: string, max: number): string {
  if (cells(text) <= max) return text;
  let out = "";
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const width = cells(segment);
    if (used + width > max) break;
    out += segment;
    used += width;
  }
  return out;
}

/** The tail of `text` that fits in `max` cells (for a line that shows what was typed last). */
export function fitCellsFromEnd(text: string, max: number): string {
  if (cells(text) <= max) return text;
  const parts = [...graphemes.segment(text)].map((s) => s.segment);
  let out = "";
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as string;
    const width = cells(part);
    if (used + width > max) break;
    out = part + out;
    used += width;
  }
  return out;
}
