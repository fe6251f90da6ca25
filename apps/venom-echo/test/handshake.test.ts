import { cleanupAll, connect, RawClient, startEcho, type TestDaemon } from "@venom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startEcho();
});
afterAll(async () => {
  await daemon.stop();
  await cleanupAll();
});

describe("handshake (conformance/spec/design.md: first request must be hello)", () => {
  it("a request before hello gets -32001 and the connection closes", async () => {
    const raw = await RawClient.open(daemon.socket);
    raw.request(1, "tools/list");
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32001 } });
    expect(await raw.waitClosed()).toBe(true);
  });

  it("a call pipelined in the same write as hello is answered after hello, and nothing comes before hello's answer", async () => {
    const raw = await RawClient.open(daemon.socket);
    raw.send(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: "venom/1", client: { name: "raw", version: "0" } } })}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "piped" } } })}\n`,
    );
    const first = await raw.next(1);
    expect(first).toMatchObject({ id: 1, result: { protocol: "venom/1" } });
    for (let n = 2; !raw.lines.some((l: any) => l.id === 2); n++) await raw.next(n);
    expect(raw.lines.find((l: any) => l.id === 2)).toMatchObject({ result: { status: "ok", content: "piped" } });
    raw.close();
  });

  it("an unknown protocol version gets -32002 naming the supported ones, and closes", async () => {
    const raw = await RawClient.open(daemon.socket);
    raw.hello(1, { protocol: "venom/99" });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32002, data: { supported: ["venom/1"] } } });
    expect(await raw.waitClosed()).toBe(true);
  });

  it("hello answers server, instance, principal, grant, snapshot and the no-sandbox notice", async () => {
    const client = await connect(daemon);
    const hello = client.hello;
    expect(hello.server.name).toBe("venom-echo");
    expect(hello.principal).toMatchObject({ kind: "owner", depth: 0, uid: process.getuid?.() });
    expect(hello.grant).toMatchObject({ tools: ["echo", "read", "run", "write"], policy: "on-risk", manage: true });
    expect(hello.snapshot.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(hello.snapshot.tools.map((t) => t.name)).toEqual(["echo", "read", "run", "write"]);
    expect(hello.notices.join("\n")).toMatch(/no sandbox is active/);
    // The fingerprint is stable across sessions of the same daemon.
    const again = await connect(daemon);
    expect(again.hello.snapshot.fingerprint).toBe(hello.snapshot.fingerprint);
    client.close();
    again.close();
  });

  it("a no-tools session gets no tools and cannot call one", async () => {
    const client = await connect(daemon, { noTools: true });
    expect(client.hello.grant.tools).toEqual([]);
    expect(client.hello.snapshot.tools).toEqual([]);
    await expect(client.callTool("echo", { text: "x" })).rejects.toMatchObject({ code: -32005 });
    client.close();
  });

  it("a tool name outside the snapshot is refused with -32005 and the connection stays open", async () => {
    const client = await connect(daemon);
    await expect(client.callTool("bash", { command: "id" })).rejects.toMatchObject({ code: -32005 });
    expect((await client.callTool("echo", { text: "still here" })).content).toBe("still here");
    client.close();
  });

  it("invalid params name the field; unknown methods are -32601; both keep the connection", async () => {
    const client = await connect(daemon);
    await expect(client.callTool("echo", { text: 42 })).rejects.toMatchObject({
      code: -32602,
      error: { data: { path: ["arguments", "text"] } },
    });
    // A field the schema does not know is named by its own key, not only by the object it is in.
    await expect(client.callTool("echo", { text: "x", zzz: 1 })).rejects.toMatchObject({
      code: -32602,
      error: { data: { path: ["arguments", "zzz"] } },
    });
    await expect(client.rpc.request("pane/explode", {})).rejects.toMatchObject({ code: -32601 });
    expect((await client.callTool("echo", { text: "ok" })).status).toBe("ok");
    client.close();
  });
});

describe("framing fails closed, one connection at a time", () => {
  it("a 3 MiB frame closes only its own connection", async () => {
    const bystander = await connect(daemon);
    const raw = await RawClient.open(daemon.socket);
    raw.hello();
    await raw.next();
    raw.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${"A".repeat(3 * 1024 * 1024)}"}}}\n`,
    );
    expect(await raw.next(2)).toMatchObject({ error: { code: -32600 } });
    expect(await raw.waitClosed()).toBe(true);
    expect((await bystander.callTool("echo", { text: "unharmed" })).content).toBe("unharmed");
    bystander.close();
  });

  it("garbage closes only its own connection", async () => {
    const bystander = await connect(daemon);
    const raw = await RawClient.open(daemon.socket);
    raw.send("this is not json\n");
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await raw.waitClosed()).toBe(true);
    const notRpc = await RawClient.open(daemon.socket);
    notRpc.send('{"hello":"world"}\n');
    expect(await notRpc.next()).toMatchObject({ error: { code: -32600 } });
    expect(await notRpc.waitClosed()).toBe(true);
    expect((await bystander.callTool("echo", { text: "unharmed" })).content).toBe("unharmed");
    bystander.close();
  });
});
