import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@venom/proto";
import type { VenomClient } from "@venom/runtime";
import { cleanupAll, cli, connect, RawClient, startMux } from "@venom/testkit";
import { alive, rssKiB } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const UPPER = fileURLToPath(new URL("./fixtures/pipe-upper.mjs", import.meta.url));

/** A client that keeps what arrives on a pipe pane's stdout. */
async function pipeClient(mux: Awaited<ReturnType<typeof startMux>>) {
  const out: { text: string; eof: boolean } = { text: "", eof: false };
  const client = await connect(mux, {
    onEvent: (method, params) => {
      const p = params as { data: string; eof?: boolean };
      if (method !== "pane/stdout") return;
      out.text += Buffer.from(p.data, "base64").toString("utf8");
      if (p.eof) out.eof = true;
    },
  });
  return { client, out };
}

function stdin(client: VenomClient, target: string, text: string, end = false) {
  return client.request("pane/stdin", { target, data: Buffer.from(text).toString("base64"), ...(end ? { end } : {}) });
}

/** A delegated pipe pane whose program has left a grandchild that ignores HUP and TERM. */
async function stubbornPipe(mux: Awaited<ReturnType<typeof startMux>>) {
  const { client, out } = await pipeClient(mux);
  const pane = await client.request("pane/new", { argv: [UPPER], name: "acp-1", mode: "pipe", envPolicy: "delegated" });
  await stdin(client, "acp-1", "spawn-stubborn\n");
  await expect.poll(() => out.text, { timeout: 20_000 }).toMatch(/stubborn \d+/);
  return { client, pane, stubborn: Number(/stubborn (\d+)/.exec(out.text)?.[1]) };
}

describe("venom-mux: pipe panes (stdio pipes instead of a pty)", () => {
  it("give the creating connection the program's stdin and stdout, and show its stderr on the pane's screen", async () => {
    const mux = await startMux();
    const { client, out } = await pipeClient(mux);
    const pane = await client.request("pane/new", { argv: [UPPER], name: "acp-1", mode: "pipe", envPolicy: "delegated" });
    expect(pane).toMatchObject({ mode: "pipe", status: "running", depth: 1 });
    await stdin(client, "acp-1", "hello pipes\n");
    await expect.poll(() => out.text, { timeout: 20_000 }).toBe("HELLO PIPES\n");
    // No terminal: the program sees pipes; what it says on stderr is what capture and ls show.
    // Each stderr line starts a line of the screen, as a terminal's onlcr would make it (not a staircase).
    await expect.poll(() => cli(mux, ["capture", "-p", "-t", "acp-1"], {}).stdout, { timeout: 20_000 }).toMatch(/^got 11 characters$/m);
    expect(cli(mux, ["capture", "-p", "-t", "acp-1"]).stdout).toMatch(/^pipe-upper ready \(stdin is a tty: false\)$/m);
    // Its delegation record is written as for any pane.
    const records = cli(mux, ["ls", "--json"]);
    expect(JSON.parse(records.stdout)[0]).toMatchObject({ name: "acp-1", mode: "pipe", envPolicy: "delegated" });
    await stdin(client, "acp-1", "", true);
    await expect.poll(() => out.eof, { timeout: 20_000 }).toBe(true);
    const ended = await client.request("pane/wait", { target: "acp-1", timeoutSeconds: 20 });
    expect(ended.pane).toMatchObject({ status: "exited", exitCode: 0 });
    client.close();
    await mux.stop();
  });

  it("let nobody but the creating connection write stdin (the owner neither), and type nothing into a pipe pane", async () => {
    const mux = await startMux();
    const { client } = await pipeClient(mux);
    await client.request("pane/new", { argv: [UPPER], name: "acp-1", mode: "pipe" });
    const other = await connect(mux);
    await expect(stdin(other, "acp-1", "injected\n")).rejects.toMatchObject({
      code: ErrorCode.OwnerRequired,
      message: expect.stringMatching(/belongs to the connection that created it/),
    });
    await expect(other.request("pane/send", { target: "acp-1", data: "typed\n" })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/pipe pane's input belongs to the connection/),
    });
    const typed = cli(mux, ["send", "-t", "acp-1", "typed", "Enter"]);
    expect(typed.code).not.toBe(0);
    expect(typed.stderr).toMatch(/pipe pane/);
    // A terminal pane is not written with pane/stdin.
    await client.request("pane/new", { argv: ["sleep", "60"], name: "tty" });
    await expect(stdin(client, "tty", "x")).rejects.toMatchObject({ message: expect.stringMatching(/terminal pane.*pane\/send/) });
    other.close();
    client.close();
    await mux.stop();
  });

  it("end with the connection that created them: the whole group, a grandchild that ignores HUP and TERM included, and the record", async () => {
    const mux = await startMux();
    // lifetime is not asked for: a pipe pane's stdio is its connection's, so it is bound to it anyway.
    const { client, pane, stubborn } = await stubbornPipe(mux);
    expect(alive(stubborn)).toBe(true);
    expect(existsSync(`${mux.home}/state/delegations`)).toBe(true);
    client.close();
    await expect.poll(() => alive(pane.pid) || alive(stubborn), { timeout: 20_000 }).toBe(false);
    await expect.poll(() => JSON.parse(cli(mux, ["ls", "--json"]).stdout).length, { timeout: 20_000 }).toBe(0);
    await mux.stop();
  });

  it("are cleaned up after a crash of the daemon exactly as pty panes: the restarted daemon stops the recorded group", async () => {
    const mux = await startMux();
    const { client, pane, stubborn } = await stubbornPipe(mux);
    mux.proc.kill("SIGKILL");
    await new Promise((r) => mux.proc.once("exit", r));
    client.close();
    expect(alive(stubborn)).toBe(true);
    const again = await startMux({ home: mux.home, workspace: mux.workspace });
    await expect.poll(() => alive(pane.pid) || alive(stubborn), { timeout: 20_000 }).toBe(false);
    expect(readdirSync(join(mux.home, "state", "delegations"))).toEqual([]);
    await again.stop();
  });

  it("cut off a connection that does not read the stdout it asked for, without buffering the flood", { timeout: 120_000 }, async () => {
    const mux = await startMux();
    const raw = await RawClient.open(mux.socket);
    raw.hello();
    await raw.next(1);
    raw.request(2, "pane/new", { argv: [UPPER], name: "flood", mode: "pipe" });
    const created = await raw.next(2);
    expect(created.result).toMatchObject({ mode: "pipe" });
    raw.request(3, "pane/stdin", { target: "flood", data: Buffer.from("flood\n").toString("base64") });
    await raw.next(3);
    // From now on this peer reads nothing.
    raw.socket.pause();
    const before = rssKiB(mux.proc.pid as number);
    await expect.poll(() => JSON.parse(cli(mux, ["ls", "--json"]).stdout).length, { timeout: 60_000, interval: 500 }).toBe(0);
    // The daemon held at most a few MiB of the flood, not the gigabytes `yes`-like output reaches in that time.
    expect(rssKiB(mux.proc.pid as number) - before).toBeLessThan(64 * 1024);
    expect(cli(mux, ["ls"]).code).toBe(0);
    raw.close();
    await mux.stop();
  });
});
