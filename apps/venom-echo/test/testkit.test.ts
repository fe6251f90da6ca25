import { cleanupAll, cli, RawClient, startEcho, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
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

  it("cleanupAll stops a daemon a test left serving in one of its temp homes, though it is not the test's child", async () => {
    const env = { ...process.env, VENOM_HOME: tempDir("home") };
    // What a restart, or a test that failed before its own `stop`, leaves behind: a daemon `start` detached.
    expect(cli({ env }, ["start", "--workspace", tempDir("ws")]).code).toBe(0);
    const { pid } = JSON.parse(cli({ env }, ["status", "--json"]).stdout);
    expect(alive(pid)).toBe(true);
    await cleanupAll();
    expect(alive(pid)).toBe(false);
  });
});
