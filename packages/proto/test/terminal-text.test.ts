import { describe, expect, it } from "vitest";
import { cutMiddle, terminalLine, terminalSafe, terminalShown } from "../src/terminal-text.js";

/** Every code point a terminal or a bidi algorithm acts on, beside newline and tab. */
const unsafe = [
  ...Array.from({ length: 0x20 }, (_, i) => i).filter((c) => c !== 0x0a && c !== 0x09),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
].map((c) => String.fromCharCode(c));

describe("terminal text", () => {
  it("escapes every C0 and C1 control, DEL and bidi control as a visible \\uXXXX, and nothing else", () => {
    for (const c of unsafe) {
      const out = terminalSafe(`a${c}b`);
      expect(out, `U+${c.charCodeAt(0).toString(16)}`).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}b`);
    }
    expect(terminalSafe("plain text, ünïcode 日本 🙂\n\tand tabs")).toBe("plain text, ünïcode 日本 🙂\n\tand tabs");
    expect(terminalSafe("two\nlines", { singleLine: true })).toBe("two\\u000alines");
  });

  it("escapes every invisible character (tags, zero-width, soft hyphen, variation selectors, BOM) and counts what it escaped", () => {
    const hidden = [0xe0001, 0xe0041, 0xe007f, 0x200b, 0x200c, 0x200d, 0x2060, 0x00ad, 0x034f, 0x180e, 0xfe0f, 0xfeff, 0xe0100, 0x0600];
    for (const code of hidden) {
      const c = String.fromCodePoint(code);
      const units = c
        .split("")
        .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join("");
      expect(terminalShown(`a${c}b`), `U+${code.toString(16)}`).toEqual({ text: `a${units}b`, escaped: 1 });
    }
    expect(terminalSafe("summarize README.md\u{E0041}\u{E0042}")).toBe("summarize README.md\\udb40\\udc41\\udb40\\udc42");
    expect(terminalShown("\u001b[2J\u200b").escaped).toBe(2);
    expect(terminalShown("plain text").escaped).toBe(0);
  });

  it("keeps emoji sequences whole: a ZWJ or a selector between visible pictographs hides nothing", () => {
    for (const emoji of ["👨‍👩‍👧", "❤️", "👍🏽", "🏳️‍🌈", "👩🏽‍💻"])
      expect(terminalShown(`a ${emoji} b`)).toEqual({ text: `a ${emoji} b`, escaped: 0 });
    // The same joiner and selector beside letters can carry hidden bits: escaped.
    expect(terminalSafe("a\u200db\ufe0f")).toBe("a\\u200db\\ufe0f");
    expect(terminalSafe("👍\u200d")).toBe("👍\\u200d");
  });

  it("is idempotent and keeps JSON valid", () => {
    const raw = "\u001b]52;c;SGVsbG8=\u0007\u202e\u{E0041}\u200b";
    const once = terminalSafe(raw);
    expect(terminalSafe(once)).toBe(once);
    expect(JSON.parse(`"${once.replace(/"/g, '\\"')}"`)).toBe(raw);
  });

  it("a cut keeps the head and the tail with the cut marked, never more than the limit, never a split surrogate", () => {
    const command = `make test${" ".repeat(600)}; touch X`;
    const cut = cutMiddle(command, 120);
    expect([...cut].length).toBeLessThanOrEqual(120);
    expect(cut.startsWith("make test")).toBe(true);
    expect(cut.endsWith("; touch X")).toBe(true);
    expect(cut).toMatch(/…\[\d+ characters cut\]…/);
    expect(cutMiddle("short", 120)).toBe("short");
    const emoji = cutMiddle("🙂".repeat(200), 60);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(terminalLine(`a\u001bb${"x".repeat(500)}end`, 80).endsWith("end")).toBe(true);
  });
});
