import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, connect, RawClient, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const CANARY = "canary-3d1f-7c2b-never-print-me";

describe("secrets never enter logs or responses (conformance/spec/design.md, Secrets and logs)", () => {
  it("a canary in the daemon's environment appears in no response and no file under logs/", async () => {
    const daemon = await startEcho({
      env: { ANTHROPIC_API_KEY: CANARY, VENOM_TEST_TOKEN: CANARY, CANARY_PLAIN: CANARY },
      files: { "notes.txt": "plain\n" },
    });
    const seen: string[] = [];
    const client = await connect(daemon, { gate: async () => "approve", onEvent: (m, p) => seen.push(JSON.stringify({ m, p })) });
    seen.push(JSON.stringify(client.hello));
    const calls: [string, Record<string, unknown>][] = [
      ["echo", { text: "hello" }],
      ["read", { path: "notes.txt" }],
      ["read", { path: "/proc/self/environ" }],
      ["read", { path: "../../proc/self/environ" }],
      ["read", { path: "missing.txt" }],
    ];
    for (const [name, args] of calls) seen.push(JSON.stringify(await client.callTool(name, args)));
    for (const bad of [
      () => client.callTool("nope", {}),
      () => client.callTool("echo", { text: 1 }),
      () => client.rpc.request("daemon/explode"),
    ]) {
      await bad().catch((error) => seen.push(JSON.stringify(error.error ?? error.message)));
    }
    seen.push(JSON.stringify(await client.request("daemon/status")));
    client.close();

    const raw = await RawClient.open(daemon.socket);
    raw.send("{ garbage\n");
    await raw.waitClosed();
    seen.push(JSON.stringify(raw.lines));

    const status = cli(daemon, ["status", "--json"]);
    const refused = cli(daemon, ["stop"], { VENOM_DELEGATION_DEPTH: "1" });
    seen.push(status.stdout, status.stderr, refused.stdout, refused.stderr);
    await daemon.stop();

    const logs = readdirSync(join(daemon.home, "logs")).map((f) => readFileSync(join(daemon.home, "logs", f), "utf8"));
    expect(logs.join("").length).toBeGreaterThan(100); // the daemon did log: the scan is not of empty files
    for (const text of [...seen, ...logs]) expect(text).not.toContain(CANARY);
  });

  it("a tool call's line in the log (written without the redaction pass) holds its tool, status and duration, never its arguments or output", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon);
    expect(await client.callTool("echo", { text: CANARY })).toMatchObject({ status: "ok", content: CANARY });
    await expect(client.callTool(CANARY, { text: CANARY })).rejects.toThrow(/not in this session's snapshot or grant/);
    await expect(client.callTool("echo", { text: CANARY, extra: CANARY })).rejects.toThrow(/invalid params/);
    client.close();
    await daemon.stop();
    const log = readFileSync(join(daemon.home, "logs", "echo.log"), "utf8");
    const calls = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === "tool call");
    expect(calls).toEqual([expect.objectContaining({ tool: "echo", status: "ok", ms: expect.any(Number) })]);
    expect(Object.keys(calls[0]).sort()).toEqual(["app", "level", "ms", "msg", "pid", "status", "time", "tool"]);
    expect(log).not.toContain(CANARY);
  });
});
