import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SOURCES, type SourceId } from "../src/check.js";

export interface Sentence {
  source: SourceId;
  section: string;
  text: string;
}

/** A source document's text: the copies in conformance/spec/, paths as SOURCES names them. */
export function sourceText(source: SourceId): string {
  return readFileSync(join(import.meta.dirname, "..", SOURCES[source].file), "utf8");
}

export const normalize = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * The sentences of one source document, each with its section. Blocks are
 * separated by blank lines; a list item or a "Status:" line starts its own block;
 * a heading (`#` in Markdown, or a line standing alone without final
 * punctuation) starts a section. Sentences end at . ! ? before a capital,
 * code span, quote, bullet or bracket.
 */
export function sentencesOf(source: "security-model" | "rfc-0008"): Sentence[] {
  const lines = sourceText(source).split("\n");
  const out: Sentence[] = [];
  let section = "";
  let block: string[] = [];
  const flush = () => {
    // A list item's marker ("- ", "• ") is layout, not part of its sentence.
    const text = normalize(block.join(" ")).replace(/^(- |• )/, "");
    block = [];
    for (const sentence of text.split(/(?<=[.!?])\s+(?=[A-Z`"“•([])/)) if (sentence) out.push({ source, section, text: sentence });
  };
  lines.forEach((line, i) => {
    const standsAlone = (lines[i - 1] ?? "").trim() === "" && (lines[i + 1] ?? "").trim() === "";
    const heading = /^#+ /.test(line)
      ? line.replace(/^#+ /, "")
      : source === "rfc-0008" && standsAlone && /^[^•].*[^.:;]$/.test(line.trim())
        ? line.trim()
        : undefined;
    const status = line.startsWith("Status: ");
    if (heading !== undefined || line.trim() === "" || status || /^\s*(- |• )/.test(line)) flush();
    if (heading !== undefined) section = heading;
    else if (line.trim() !== "") block.push(line.trim());
    if (status) flush();
  });
  flush();
  return out;
}
