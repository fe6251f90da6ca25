import { describe, expect, it } from "vitest";
import { wrapMarkdown } from "../src/markdown-wrap.js";

describe("wrapMarkdown (the generated docs and the hand-written ones)", () => {
  it("fills a long paragraph and a list item to the width, the item's lines indented under its text", () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    const wrapped = wrapMarkdown(`${words}\n\n- ${words}`, 40).split("\n");
    expect(wrapped.every((line) => line.length <= 40)).toBe(true);
    expect(wrapped.join(" ").replace(/\s+/g, " ")).toBe(`${words} - ${words}`);
    const item = wrapped.slice(wrapped.indexOf("") + 1);
    expect(item[0]?.startsWith("- word0")).toBe(true);
    expect(item.slice(1).every((line) => line.startsWith("  word"))).toBe(true);
  });

  it("never cuts a code span, and leaves tables, headings, code blocks and short lines as written", () => {
    const span = "`venom-orch run claude 'fix the failing test'`";
    const long = `${"a ".repeat(15)}${span} ${"b ".repeat(10)}`.trim();
    expect(wrapMarkdown(long, 40).split("\n")).toContain(span);
    const kept = [`# ${"h".repeat(60)}`, `| ${"t".repeat(60)} |`, "```", "c ".repeat(40), "```", `    ${"i ".repeat(30)}`, "short"];
    expect(wrapMarkdown(kept.join("\n"), 40)).toBe(kept.join("\n"));
  });
});
