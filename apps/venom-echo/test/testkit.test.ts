import { cleanupAll, RawClient, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("testkit", () => {
  it("the raw client decodes UTF-8 that a socket splits across chunks", async () => {
    const daemon = await startEcho();
    const raw = await RawClient.open(daemon.socket);
    raw.hello();
    await raw.next(1);
    // 4-byte characters over many socket reads: some read boundary falls inside one of them.
    const text = "é🙂".repeat(20_000);
    raw.request(2, "tools/call", { name: "echo", arguments: { text } });
    // Events about the call come first; the answer is the line with id 2.
    const answer = () => raw.lines.find((line) => (line as { id?: unknown }).id === 2) as { result?: { content: string } } | undefined;
    await expect.poll(() => answer(), { timeout: 30_000 }).toBeDefined();
    expect(answer()?.result?.content).toBe(text);
    raw.close();
    await daemon.stop();
  });
});
