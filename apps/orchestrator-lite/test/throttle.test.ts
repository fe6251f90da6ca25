import { afterEach, describe, expect, it, vi } from "vitest";
import { throttled } from "../src/acp/throttle.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("progress lines from an agent (acp/throttle.ts)", () => {
  it("passes at most N lines a second and counts the rest, said with the next line or once the second is over", () => {
    vi.useFakeTimers({ now: 5_000 });
    const sent: string[] = [];
    const progress = throttled((line) => sent.push(line), 3);
    for (let i = 0; i < 10; i++) progress.line(`tool ${i}`);
    expect(sent).toEqual(["tool 0", "tool 1", "tool 2"]);
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toBe("(7 more tool calls not shown)");
    for (let i = 10; i < 15; i++) progress.line(`tool ${i}`);
    expect(sent.slice(4)).toEqual(["tool 10", "tool 11", "tool 12"]);
    vi.advanceTimersByTime(1000);
    progress.line("tool 15");
    // The count went out at the second's end, so the next line carries none.
    expect(sent.slice(7)).toEqual(["(2 more tool calls not shown)", "tool 15"]);
    progress.line("tool 16");
    progress.line("tool 17");
    progress.line("tool 18");
    progress.flush();
    expect(sent.slice(9)).toEqual(["tool 16", "tool 17", "(1 more tool calls not shown)"]);
    vi.advanceTimersByTime(5000);
    expect(sent).toHaveLength(12);
  });
});
