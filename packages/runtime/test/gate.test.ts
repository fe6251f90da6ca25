import { describe, expect, it } from "vitest";
import { shownSummary } from "../src/cli/gate.js";

describe("the y/N prompt's summary (cli/gate.ts)", () => {
  it("shows at most 12 lines, head and tail with the cut marked, so no summary draws a fake request above the question", () => {
    const fake = [
      "run rm -rf ~",
      ...Array.from({ length: 200 }, () => ""),
      "venom-orch: approval needed [echo] write (write)",
      "  write notes.txt",
    ];
    const shown = shownSummary(fake.join("\n")).split("\n");
    expect(shown).toHaveLength(13);
    expect(shown[0]).toBe("run rm -rf ~");
    expect(shown[6]).toBe("…[191 lines cut]…");
    expect(shown.at(-1)).toBe("  write notes.txt");
  });

  it("escapes what a terminal would obey or hide, says how many, and keeps a short summary whole", () => {
    expect(shownSummary("read .env\nfrom \u001b]0;title\u0007 here")).toBe(
      "read .env\nfrom \\u001b]0;title\\u0007 here\n(2 invisible or control characters shown escaped)",
    );
    expect(shownSummary("read .env\u{E0041}")).toBe("read .env\\udb40\\udc41\n(1 invisible or control character shown escaped)");
    expect(shownSummary("read .env")).toBe("read .env");
  });
});
