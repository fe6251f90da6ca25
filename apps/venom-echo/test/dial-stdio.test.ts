import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { PROTOCOL } from "@venom/proto";
import { cleanupAll, cli, connect, ECHO_BIN, RawClient, startEcho, startMux, startOrch, tempDir } from "@venom/testkit";
import { impostorDaemon, openFds, socketsOf } from "@venom/testkit/proc";
import { afterAll, afterEach, describe, expect, it } from "vitest";

/** `APP dial-stdio`, run as a user runs it, its stdout read as JSON lines (a last line without its newline is left). */
class Bridge {
  readonly lines: any[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;
  #raw = "";

  constructor(readonly proc: ChildProcessWithoutNullStreams) {
    const decoder = new StringDecoder("utf8");
    proc.stdout.on("data", (d: Buffer) => {
      this.#raw += decoder.write(d);
      for (let nl = this.#raw.indexOf("\n"); nl !== -1; nl = this.#raw.indexOf("\n")) {
        this.lines.push(JSON.parse(this.#raw.slice(0, nl)));
        this.#raw = this.#raw.slice(nl + 1);
      }
    });
    proc.stderr.on("data", (d) => {
      this.stderr += d;
    });
    // Writes to a bridge that has already ended (the daemon closed) fail with EPIPE: that is the test's to see.
    proc.stdin.on("error", () => undefined);
    // Once its stdout is read to the end, too.
    this.exited = new Promise((resolve) => proc.once("close", (code) => resolve(code)));
  }

  get pid(): number {
    return this.proc.pid as number;
  }

  send(line: string): void {
    this.proc.stdin.write(line);
  }

  request(id: number, method: string, params?: unknown): void {
    this.send(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  }

  hello(id = 1): void {
    this.request(id, "hello", { protocol: PROTOCOL, client: { name: "raw", version: "0" } });
  }

  /** The answer to request `id` (null: an error the daemon could not tie to a request), once it has come. */
  answer(id: number | null): Promise<any> {
    return answerIn(this.lines, id, () => `stderr: ${this.stderr}`);
  }

  /** Its exit code, which must come within `timeoutMs`. */
  async exit(timeoutMs = 15_000): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the bridge did not exit within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The answer to `id` among `lines` as they arrive. */
async function answerIn(lines: any[], id: number | null, context = () => ""): Promise<any> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = lines.find((line) => line.id === id && !("method" in line));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no answer to ${id}; ${context()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const bridges: Bridge[] = [];

/** Start `dial-stdio` of the daemon's program (venom-echo unless it says otherwise) in its environment. */
function dialStdio(daemon: { env: NodeJS.ProcessEnv; bin?: string }, args: string[] = [], env: NodeJS.ProcessEnv = {}): Bridge {
  const proc = spawn(process.execPath, [daemon.bin ?? ECHO_BIN, "dial-stdio", ...args], {
    env: { ...daemon.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const bridge = new Bridge(proc);
  bridges.push(bridge);
  return bridge;
}

/** A home where no daemon runs, with the environment a daemon of it would have. */
function emptyHome(): { env: NodeJS.ProcessEnv; home: string } {
  const home = tempDir("home");
  return { home, env: { ...process.env, HOME: tempDir("user"), VENOM_HOME: home } };
}

const withoutPid = (hello: any) => ({ ...hello, result: { ...hello.result, principal: { ...hello.result.principal, pid: 0 } } });

// Every bridge a test started has ended by its end: none is left running, holding a connection.
afterEach(async () => {
  const running = bridges.splice(0).filter((bridge) => bridge.proc.exitCode === null && bridge.proc.signalCode === null);
  for (const bridge of running) bridge.proc.kill("SIGKILL");
  expect(running.map((bridge) => bridge.pid)).toEqual([]);
});
afterAll(cleanupAll);

describe("dial-stdio: the daemon's socket on stdin and stdout", () => {
  it("a hello and tool calls through the bridge get the same answers as on the socket", async () => {
    const daemon = await startEcho({ files: { "notes.txt": "through the bridge\n" } });
    const raw = await RawClient.open(daemon.socket);
    const bridge = dialStdio(daemon);
    const requests: [string, unknown][] = [
      ["tools/call", { name: "echo", arguments: { text: "héllo ✓" } }],
      ["tools/call", { name: "read", arguments: { path: "notes.txt" } }],
      ["tools/list", undefined],
      ["tools/call", { name: "echo", arguments: { text: 42 } }],
    ];
    for (const peer of [raw, bridge]) {
      peer.hello();
      for (const [i, [method, params]] of requests.entries()) peer.request(i + 2, method, params);
    }
    const rawAnswers = await Promise.all([1, 2, 3, 4, 5].map((id) => answerIn(raw.lines, id)));
    const bridged = await Promise.all([1, 2, 3, 4, 5].map((id) => bridge.answer(id)));
    expect(bridged[1].result).toEqual({ status: "ok", content: "héllo ✓" });
    expect(bridged[2].result).toMatchObject({ status: "ok", content: "through the bridge\n" });
    expect(bridged[4].error.code).toBe(-32602);
    // The same answers, but for the pid the daemon saw: the bridge's process, checked as any peer (SO_PEERCRED).
    expect(withoutPid(bridged[0])).toEqual(withoutPid(rawAnswers[0]));
    expect(bridged.slice(1)).toEqual(rawAnswers.slice(1));
    expect(bridged[0].result.principal).toMatchObject({ kind: "owner", depth: 0, pid: bridge.pid });
    expect(rawAnswers[0].result.principal.pid).toBe(process.pid);
    // A client of the socket, no server: it listens nowhere and holds no TCP or UDP socket.
    const sockets = socketsOf(bridge.pid);
    expect(sockets).toContain("connected");
    expect(sockets.filter((kind) => kind !== "connected")).toEqual([]);
    bridge.proc.stdin.end();
    expect(await bridge.exit()).toBe(0);
    raw.close();
    await daemon.stop();
  });

  it("closing stdin half-closes: the last answer comes, the bridge exits 0; the daemon keeps serving others and holds nothing of it", async () => {
    const daemon = await startEcho();
    const bystander = await connect(daemon);
    const fdsBefore = openFds(daemon.proc.pid as number).length;
    // Four at once: one that closed the socket outright at the end of stdin would lose some of the last answers.
    const four = [1, 2, 3, 4].map(() => dialStdio(daemon));
    for (const bridge of four) bridge.hello();
    for (const bridge of four) expect((await bridge.answer(1)).result.principal.kind).toBe("owner");
    expect((await bystander.request("daemon/status")).connections).toBe(5);
    const last = `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "last" } } })}\n`;
    for (const bridge of four) bridge.proc.stdin.end(last);
    for (const bridge of four) {
      expect(await bridge.exit()).toBe(0);
      expect(bridge.lines.find((line) => line.id === 2)?.result).toEqual({ status: "ok", content: "last" });
      expect(bridge.stderr).toBe("");
    }
    // The bridges' connections are gone from the daemon (their fds closed), and everyone else is still served.
    await expect.poll(() => openFds(daemon.proc.pid as number).length, { timeout: 10_000 }).toBe(fdsBefore);
    expect((await bystander.request("daemon/status")).connections).toBe(1);
    expect((await bystander.callTool("echo", { text: "unharmed" })).content).toBe("unharmed");
    bystander.close();
    await daemon.stop();
  });

  it("the daemon closing first ends the bridge with exit 0, its last answer written, while stdin is still open", async () => {
    const daemon = await startEcho();
    const bridge = dialStdio(daemon);
    bridge.hello();
    bridge.request(2, "daemon/stop");
    // The owner's bridge may stop the daemon: it answers, closes every connection, and exits.
    expect((await bridge.answer(2)).result).toBeDefined();
    expect(await bridge.exit()).toBe(0);
    expect(bridge.proc.stdin.writableEnded).toBe(false);
    await new Promise((r) => (daemon.proc.exitCode === null ? daemon.proc.once("exit", r) : r(null)));
    expect(existsSync(daemon.socket)).toBe(false);
  });

  it("with no daemon running it exits 4 naming the socket and how to start one; a stale socket alike", async () => {
    const { env, home } = emptyHome();
    const socket = join(home, "state", "echo.sock");
    const message = `venom-echo dial-stdio: no venom-echo daemon is running on ${socket}; \`venom-echo start\` starts one (or \`venom-echo dial-stdio --start\`)\n`;
    const none = dialStdio({ env });
    expect(await none.exit()).toBe(4);
    expect(none.stderr).toBe(message);
    expect(none.lines).toEqual([]);
    // A daemon killed with SIGKILL leaves its socket file: nothing answers on it (ECONNREFUSED).
    const killed = await startEcho({ home });
    killed.proc.kill("SIGKILL");
    await new Promise((r) => killed.proc.once("exit", r));
    expect(existsSync(socket)).toBe(true);
    const stale = dialStdio({ env });
    expect(await stale.exit()).toBe(4);
    expect(stale.stderr).toBe(message);
  });

  it("a socket another uid listens on never receives a byte from the bridge: exit 1 naming that uid", async () => {
    const { env, home } = emptyHome();
    const impostor = await impostorDaemon(home, "echo");
    try {
      const bridge = dialStdio({ env });
      bridge.hello();
      expect(await bridge.exit()).toBe(1);
      expect(bridge.stderr).toMatch(/venom-echo dial-stdio: the server on .*echo\.sock runs as uid 65534, not as you/);
      await expect.poll(() => impostor.heard(), { timeout: 20_000 }).toContain("CLOSED");
      expect(impostor.heard()).not.toContain("GOT");
    } finally {
      impostor.kill();
    }
  });

  it("--start starts the daemon when none runs (the owner only), then bridges to it", async () => {
    const { env, home } = emptyHome();
    const workspace = tempDir("ws");
    expect(cli({ env }, ["dial-stdio", "--workspace", workspace]).code).toBe(2);
    // Under a delegation nothing is started: exit 3, as for `start`.
    const delegate = dialStdio({ env }, ["--start", "--workspace", workspace], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/x" });
    expect(await delegate.exit()).toBe(3);
    expect(delegate.stderr).toMatch(/refused: no venom-echo daemon is running on .*starting one needs the owner context/);
    expect(existsSync(join(home, "state", "echo.sock"))).toBe(false);

    const bridge = dialStdio({ env }, ["--start", "--workspace", workspace]);
    bridge.hello();
    expect((await bridge.answer(1)).result).toMatchObject({ workspace, principal: { kind: "owner" } });
    bridge.proc.stdin.end();
    expect(await bridge.exit()).toBe(0);
    expect(bridge.stderr).toBe(
      `venom-echo: no daemon was running: started one (pid ${JSON.parse(cli({ env }, ["status", "--json"]).stdout).pid}) for the workspace ${workspace}\n`,
    );
    // The daemon it started keeps running, as `start`'s does; a second --start finds it and starts nothing.
    const status = JSON.parse(cli({ env }, ["status", "--json"]).stdout);
    expect(status.workspace).toBe(workspace);
    const again = dialStdio({ env }, ["--start"]);
    again.hello();
    expect((await again.answer(1)).result.principal.kind).toBe("owner");
    again.proc.stdin.end();
    expect(await again.exit()).toBe(0);
    expect(again.stderr).toBe("");
    expect(JSON.parse(cli({ env }, ["status", "--json"]).stdout).pid).toBe(status.pid);
    expect(cli({ env }, ["stop"]).code).toBe(0);
  });
});

describe("the daemon checks the bridge's process like any peer", () => {
  it("a bridge under delegation markers is a delegate (management refused, -32003); the owner's bridge is the owner", async () => {
    const daemon = await startEcho();
    const delegate = dialStdio(daemon, [], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/test-1" });
    delegate.hello();
    delegate.request(2, "daemon/stop");
    const hello = (await delegate.answer(1)).result;
    expect(hello.principal).toMatchObject({ kind: "delegate", depth: 1, parent: "orch/test-1", evidence: ["environ"], pid: delegate.pid });
    expect(hello.grant.manage).toBe(false);
    const refused = await delegate.answer(2);
    expect(refused.error.code).toBe(-32003);
    expect(refused.error.data.principal.kind).toBe("delegate");
    expect(cli(daemon, ["status"]).code).toBe(0);

    const owner = dialStdio(daemon);
    owner.hello();
    owner.request(2, "daemon/stop");
    expect((await owner.answer(1)).result).toMatchObject({
      principal: { kind: "owner", depth: 0, evidence: [], pid: owner.pid },
      grant: { manage: true },
    });
    expect((await owner.answer(2)).error).toBeUndefined();
    // The daemon stops, closing every connection: both bridges end with it.
    expect(await owner.exit()).toBe(0);
    expect(await delegate.exit()).toBe(0);
    await new Promise((r) => (daemon.proc.exitCode === null ? daemon.proc.once("exit", r) : r(null)));
  });

  it("a bridge started in a venom-mux pane, its environment cleared, is a delegate by ancestry; run by the owner, the owner", async () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const [echo, mux] = await Promise.all([startEcho({ home, workspace }), startMux({ home, workspace })]);
    const dir = tempDir("bridge");
    const requests = join(dir, "requests");
    const hello = { jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: PROTOCOL, client: { name: "pane", version: "0" } } };
    writeFileSync(requests, `${JSON.stringify(hello)}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "daemon/stop" })}\n`);
    // No marker reaches the bridge (env -i): only its recorded ancestor, the pane, says it is a delegate. Its stdin
    // ends once both answers are out (or after 30 s).
    const bridgeLine = (out: string) =>
      `(cat ${requests}; i=0; while [ "$(wc -l < ${out})" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done) | ` +
      `env -i VENOM_HOME=${home} ${process.execPath} ${ECHO_BIN} dial-stdio > ${out} 2>&1; echo "exit=$?" >> ${out}`;
    const inPane = join(dir, "in-pane");
    expect(cli(mux, ["new", "-d", "-n", "bridge", "--", "/bin/sh", "-c", bridgeLine(inPane)]).code).toBe(0);
    const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
    await expect.poll(() => read(inPane).at(-1), { timeout: 20_000 }).toBe("exit=0");
    const [paneHello, paneStop] = read(inPane)
      .slice(0, 2)
      .map((line) => JSON.parse(line));
    expect(paneHello.result.principal).toMatchObject({ kind: "delegate", depth: 1, evidence: ["ancestry"] });
    expect(paneHello.result.principal.parent).toMatch(/^[0-9a-f-]+\/mux-/);
    expect(paneStop.error.code).toBe(-32003);
    expect(cli(echo, ["status"]).code).toBe(0);

    // The same command line run by the owner, outside Venom's processes: the owner, whose daemon/stop is taken.
    const byOwner = join(dir, "by-owner");
    const owner = spawn("/bin/sh", ["-c", bridgeLine(byOwner)], { env: { ...process.env, VENOM_HOME: home }, stdio: "ignore" });
    await new Promise((r) => owner.once("exit", r));
    const [ownerHello, ownerStop, exit] = read(byOwner);
    expect(JSON.parse(ownerHello as string).result.principal).toMatchObject({ kind: "owner", depth: 0, evidence: [] });
    expect(JSON.parse(ownerStop as string).result).toBeDefined();
    expect(exit).toBe("exit=0");
    await new Promise((r) => (echo.proc.exitCode === null ? echo.proc.once("exit", r) : r(null)));
    await mux.stop();
  });

  it("a frame over the daemon's limit is refused by the daemon as on the socket; a frame under it passes whole", async () => {
    const daemon = await startEcho();
    const bystander = await connect(daemon);
    const raw = await RawClient.open(daemon.socket);
    const bridge = dialStdio(daemon);
    // Just under the 1 MiB frame limit: the daemon reads it whole and answers (the text is too long for echo).
    const under = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${"A".repeat(1_000_000)}"}}}\n`;
    const over = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${"A".repeat(3 * 1024 * 1024)}"}}}\n`;
    for (const [peer, lines] of [
      [raw, raw.lines],
      [bridge, bridge.lines],
    ] as const) {
      peer.hello();
      await answerIn(lines, 1);
      peer.send(under);
      await answerIn(lines, 2);
      peer.send(over);
    }
    expect((await bridge.answer(2)).error).toMatchObject({ code: -32602, data: { path: ["arguments", "text"] } });
    expect((await bridge.answer(null)).error).toEqual({ code: -32600, message: "frame over the 1048576-byte limit" });
    // The daemon closed the connection: the bridge ends on its own, its stdin still open.
    expect(await bridge.exit()).toBe(0);
    expect(bridge.proc.stdin.writableEnded).toBe(false);
    expect(await raw.waitClosed()).toBe(true);
    expect(bridge.lines.slice(1)).toEqual(raw.lines.slice(1));
    expect((await bystander.callTool("echo", { text: "unharmed" })).content).toBe("unharmed");
    bystander.close();
    await daemon.stop();
  });

  it("a bridge read as fast as answers come carries them all; one whose stdout is not read stops reading the socket, and the daemon cuts it off", async () => {
    const daemon = await startEcho();
    const bystander = await connect(daemon);
    const size = Buffer.byteLength(JSON.stringify(await bystander.request("tools/list")));
    // Answers of about 256 KiB asked for every 10 ms, up to 40 MiB in all: slow enough for any reader to keep up with,
    // so only a reader that stopped lets the daemon's queue of answers (16 MiB at most) fill up.
    const perBatch = Math.ceil((256 * 1024) / size);
    const batch = '{"jsonrpc":"2.0","id":0,"method":"tools/list"}\n'.repeat(perBatch);
    const batches = Math.ceil((40 * 1024 * 1024) / (256 * 1024));
    const connections = async () => (await bystander.request("daemon/status")).connections;
    const flood = async (bridge: Bridge, until: () => Promise<boolean>) => {
      for (let i = 0; i < batches && !(await until()); i++) {
        bridge.send(batch);
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    const reading = dialStdio(daemon);
    reading.hello();
    await reading.answer(1);
    // Read as fast as answers come: each batch waits for the one before the last to be answered, so however slow a
    // loaded machine makes the reader, no more than two batches are ever queued.
    let sent = 0;
    await flood(reading, async () => {
      await expect.poll(() => reading.lines.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1 + Math.max(0, sent - 1) * perBatch);
      sent++;
      return false;
    });
    await expect.poll(() => reading.lines.length, { timeout: 30_000 }).toBe(1 + batches * perBatch);
    expect(await connections()).toBe(2);
    reading.proc.stdin.end();
    expect(await reading.exit()).toBe(0);

    const stalled = dialStdio(daemon);
    stalled.hello();
    await stalled.answer(1);
    // Nobody reads this bridge's stdout from here on.
    stalled.proc.stdout.pause();
    await flood(stalled, async () => (await connections()) === 1);
    await expect.poll(connections, { timeout: 30_000, interval: 100 }).toBe(1);
    expect(readFileSync(join(daemon.home, "logs", "echo.log"), "utf8")).toMatch(/closing connection: peer stopped reading/);
    stalled.proc.stdout.resume();
    expect(await stalled.exit()).toBe(0);
    expect(stalled.lines.length).toBeLessThan(reading.lines.length);
    bystander.close();
    await daemon.stop();
  });
});

describe("every daemon has it", () => {
  it("venom-mux dial-stdio and venom-orch dial-stdio bridge to their own daemons", async () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const [mux, orch] = await Promise.all([startMux({ home, workspace }), startOrch({ home, workspace })]);
    const toMux = dialStdio(mux);
    const toOrch = dialStdio(orch);
    toMux.hello();
    toMux.request(2, "pane/list", {});
    toOrch.hello();
    toOrch.request(2, "daemon/status");
    expect((await toMux.answer(1)).result.server.name).toBe("venom-mux");
    expect((await toMux.answer(2)).result).toMatchObject({ panes: [] });
    expect((await toOrch.answer(1)).result.server.name).toBe("venom-orch");
    expect((await toOrch.answer(2)).result.pid).toBe(orch.proc.pid);
    for (const bridge of [toMux, toOrch]) bridge.proc.stdin.end();
    expect(await toMux.exit()).toBe(0);
    expect(await toOrch.exit()).toBe(0);
    expect(cli(mux, ["dial-stdio", "--help"]).stdout).toMatch(/^Usage: venom-mux dial-stdio \[--start \[--workspace DIR\]\]/);
    await Promise.all([mux.stop(), orch.stop()]);
  });
});
