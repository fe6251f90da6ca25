import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROTOCOL } from "@venom/proto";
import { cleanupAll, cli, ECHO_BIN, RawClient, startEcho, type TestDaemon, tempDir } from "@venom/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startEcho();
});
afterAll(async () => {
  await daemon.stop();
  await cleanupAll();
});

/** Run a small client script in its own process, with its own environment and uid. */
function clientProcess(script: string, options: { env?: NodeJS.ProcessEnv; asNobody?: boolean } = {}): Promise<string> {
  const argv = options.asNobody
    ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "--input-type=module", "-e", script]
    : [process.execPath, "--input-type=module", "-e", script];
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("exit", () => resolve(out.trim()));
  });
}

/** A hello and then one request, reported as JSON lines; "CLOSED" when the server hangs up. */
const helloThen = (socket: string, method: string) => `
  import net from "node:net";
  const s = net.createConnection(${JSON.stringify(socket)});
  let buf = "";
  s.on("data", d => { buf += d; });
  s.on("close", () => { console.log(buf.trim() || "CLOSED"); process.exit(0); });
  s.on("error", e => { console.log("ERROR " + e.code); process.exit(0); });
  s.on("connect", () => {
    s.write(JSON.stringify({jsonrpc:"2.0",id:1,method:"hello",params:{protocol:${JSON.stringify(PROTOCOL)},client:{name:"t",version:"0"}}}) + "\\n");
    s.write(JSON.stringify({jsonrpc:"2.0",id:2,method:${JSON.stringify(method)}}) + "\\n");
    setTimeout(() => s.end(), 1500);
  });`;

describe("peer identity (SO_PEERCRED, /proc environ)", () => {
  it("a client running as nobody is refused even after chmod 777 of the socket and its directories", async () => {
    const dirs = [daemon.home, dirname(daemon.socket)];
    for (const dir of dirs) chmodSync(dir, 0o777);
    chmodSync(daemon.socket, 0o777);
    try {
      const out = await clientProcess(helloThen(daemon.socket, "daemon/status"), { asNobody: true });
      // Closed before any byte was read: no hello answer, no status.
      expect(out).toMatch(/^(CLOSED|ERROR ECONNRESET|ERROR EPIPE)$/);
    } finally {
      chmodSync(daemon.socket, 0o600);
      for (const dir of dirs) chmodSync(dir, 0o700);
    }
    // The attack works against a daemon that does not check: the same client as root is answered.
    const control = await clientProcess(helloThen(daemon.socket, "daemon/status"));
    expect(control).toContain('"activeCalls"');
  });

  it("a client whose environment carries the markers is a delegate, and its daemon/stop is refused", async () => {
    const out = await clientProcess(helloThen(daemon.socket, "daemon/stop"), {
      env: { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/test-1" },
    });
    const [hello, stop] = out.split("\n").map((l) => JSON.parse(l));
    expect(hello.result.principal).toMatchObject({ kind: "delegate", depth: 1, parent: "orch/test-1", evidence: ["environ"] });
    expect(hello.result.grant.manage).toBe(false);
    expect(stop.error.code).toBe(-32003);
    expect(stop.error.message).toMatch(/owner context/);
    expect(stop.error.data.principal.kind).toBe("delegate");
    expect(cli(daemon, ["status"]).code).toBe(0);
  });

  it("a client cannot lower its observed depth by claiming depth 0", async () => {
    const script = helloThen(daemon.socket, "daemon/stop").replace(
      'client:{name:"t",version:"0"}',
      'client:{name:"t",version:"0"},delegation:{depth:0,parent:null}',
    );
    const out = await clientProcess(script, { env: { VENOM_DELEGATION_DEPTH: "2" } });
    const [hello, stop] = out.split("\n").map((l) => JSON.parse(l));
    expect(hello.result.principal.depth).toBe(2);
    expect(stop.error.code).toBe(-32003);
  });

  it("`venom-echo stop` under the markers exits non-zero before connecting, and the daemon lives", () => {
    const result = cli(daemon, ["stop"], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/x" });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/refused: .*delegation.*owner context/);
    for (const command of ["start", "restart"]) expect(cli(daemon, [command], { VENOM_DELEGATION_DEPTH: "1" }).code).toBe(3);
    expect(cli(daemon, ["status"]).code).toBe(0);
  });

  it("restart --when-idle is allowed to a delegate (spec exception) and the daemon comes back", async () => {
    const before = JSON.parse(cli(daemon, ["status", "--json"]).stdout);
    const result = cli(daemon, ["restart", "--when-idle", "--json"], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/x" });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ scheduled: true, whenIdle: true });
    const after = await vi.waitFor(
      () => {
        const status = cli(daemon, ["status", "--json"]);
        const now: { pid?: number } = status.code === 0 ? JSON.parse(status.stdout) : {};
        if (!now.pid || now.pid === before.pid) throw new Error("not restarted yet");
        return now;
      },
      { timeout: 45_000, interval: 50 },
    );
    expect(after.pid).toBeGreaterThan(0);
    expect(after.pid).not.toBe(before.pid);
    // The restarted daemon is detached from this test: stop it as the owner.
    expect(cli(daemon, ["stop"]).code).toBe(0);
    daemon = await startEcho();
  });

  it("a delegate may only name a workspace inside its parent's", async () => {
    const hello = (workspace: string) => `
      import net from "node:net";
      const s = net.createConnection(${JSON.stringify(daemon.socket)});
      let buf = "";
      s.on("data", d => { buf += d; if (buf.includes("\\n")) { console.log(buf.trim()); process.exit(0); } });
      s.on("connect", () => s.write(JSON.stringify({jsonrpc:"2.0",id:1,method:"hello",params:{protocol:"venom/1",client:{name:"t",version:"0"},workspace:${JSON.stringify(workspace)}}}) + "\\n"));`;
    const env = { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "orch/x" };
    const outside = JSON.parse(await clientProcess(hello("/tmp"), { env }));
    expect(outside.error).toMatchObject({ code: -32602, data: { path: ["workspace"] } });
    // A relative path, owner or delegate, is refused: it would be taken from wherever the daemon started.
    for (const relative of ["..", "."]) {
      const reply = JSON.parse(await clientProcess(hello(relative)));
      expect(reply.error).toMatchObject({ code: -32602, message: "invalid params: workspace: not an absolute path" });
    }
    mkdirSync(join(daemon.workspace, "sub"), { recursive: true });
    const inside = JSON.parse(await clientProcess(hello(join(daemon.workspace, "sub")), { env }));
    expect(inside.result.workspace).toBe(join(realpathSync(daemon.workspace), "sub"));
  });
});

describe("stdio transport", () => {
  it("needs hello first and offers no management", () => {
    const early = spawnSync(process.execPath, [ECHO_BIN, "serve", "--stdio", "--workspace", daemon.workspace], {
      input: `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "daemon/status" })}\n`,
      env: daemon.env,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(JSON.parse(early.stdout.trim().split("\n")[0] as string)).toMatchObject({ id: 1, error: { code: -32001 } });

    const session = [
      { jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: PROTOCOL, client: { name: "t", version: "0" } } },
      { jsonrpc: "2.0", id: 2, method: "daemon/stop" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "over stdio" } } },
    ]
      .map((m) => JSON.stringify(m))
      .join("\n");
    const result = spawnSync(process.execPath, [ECHO_BIN, "serve", "--stdio", "--workspace", daemon.workspace], {
      input: `${session}\n`,
      env: daemon.env,
      encoding: "utf8",
      timeout: 20_000,
    });
    // Replies may interleave with event/tool notifications; match them by id.
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const replies = [1, 2, 3].map((id) => lines.find((l) => l.id === id));
    expect(replies[0].result.principal.kind).toBe("local");
    expect(replies[0].result.grant.manage).toBe(false);
    expect(replies[1].error).toMatchObject({ code: -32003 });
    expect(replies[1].error.message).toMatch(/not offered over stdio/);
    expect(replies[2].result).toMatchObject({ status: "ok", content: "over stdio" });
    // Diagnostics never go to the protocol stream.
    expect(result.stdout).not.toMatch(/"level":/);
  });
});

describe("a caller whose confinement cannot be known", () => {
  type Reply = { result?: any; error?: any };
  const hello = (extra: Record<string, unknown> = {}): [string, unknown] => [
    "hello",
    { protocol: "venom/1", client: { name: "t", version: "0" }, approvals: true, ...extra },
  ];

  /**
   * What a process under no_new_privs with an empty environment is answered: what a Landlock-confined agent
   * keeps after setsid, a double fork and env -i. One connection for each list of requests, sent in order; it
   * approves its own approval requests; the replies of each connection in the order of its requests.
   */
  function escaped(sessions: [string, unknown][][]): Reply[][] {
    const script = `
      import net from "node:net";
      const session = (requests) => new Promise((resolve) => {
        const s = net.createConnection(${JSON.stringify(daemon.socket)});
        let buf = ""; const replies = [];
        s.on("data", (d) => {
          buf += d;
          for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
            const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
            if (m.method === "approval/request") s.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { decision: "approve" } }) + "\\n");
            else if (m.id !== undefined) replies.push(m);
            if (replies.length === requests.length) s.end();
          }
        });
        s.on("close", () => resolve(replies.sort((a, b) => a.id - b.id)));
        s.on("connect", () => requests.forEach(([method, params], id) => s.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\\n")));
      });
      const all = [];
      for (const requests of ${JSON.stringify(sessions)}) all.push(await session(requests));
      process.stdout.write(JSON.stringify(all), () => process.exit(0));`;
    const run = spawnSync("setpriv", ["--no-new-privs", "env", "-i", process.execPath, "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.stderr).toBe("");
    return JSON.parse(run.stdout);
  }

  it("under no_new_privs and descended from no record (a confined process that left its tree): no tool, no management", () => {
    const outside = tempDir("venom-outside-");
    writeFileSync(join(outside, "secret.txt"), "SECRET-OUTSIDE\n");
    writeFileSync(join(daemon.workspace, "inside.txt"), "inside\n");
    const [[outsideHello] = [], [inside, read, write, stop] = []] = escaped([
      [hello({ workspace: outside })],
      [
        hello(),
        ["tools/call", { name: "read", arguments: { path: "inside.txt" } }],
        ["tools/call", { name: "write", arguments: { path: "pwned.txt", content: "x" } }],
        ["daemon/stop", {}],
      ],
    ]);
    // A delegate: it may not name a workspace outside the daemon's, as it could as the owner.
    expect(outsideHello?.error).toMatchObject({ code: -32602, data: { path: ["workspace"] } });
    expect(inside?.result?.principal).toMatchObject({ kind: "delegate", evidence: ["no_new_privs"] });
    // Not even the daemon's workspace is read or written for it: its own layers may not allow it.
    for (const reply of [read, write]) expect(reply?.error?.message).toMatch(/^refused: you run under no_new_privs/);
    expect(existsSync(join(daemon.workspace, "pwned.txt"))).toBe(false);
    expect(stop?.error).toMatchObject({ code: -32003 });
    expect(cli(daemon, ["status"]).code).toBe(0);
  });

  it("under no_new_privs it is told why, and its tool calls are refused naming it", () => {
    const [[greeted, call] = []] = escaped([[hello(), ["tools/call", { name: "echo", arguments: { text: "hi" } }]]]);
    expect(greeted?.result?.principal).toMatchObject({ kind: "delegate", evidence: expect.arrayContaining(["no_new_privs"]) });
    expect(greeted?.result?.notices.join("\n")).toMatch(/you run under no_new_privs.*: Venom does nothing for you/);
    expect(call?.error?.message).toMatch(/^refused: you run under no_new_privs/);
  });
});

describe("a delegate's workspace is the directory that was checked", () => {
  it("a delegate flipping the directory it names with a symlink leading out never gets a session outside its parent's workspace", async () => {
    // ws/sub is a directory inside, then a symlink to a directory outside, many thousand times a second:
    // the workspace must be judged and used as one opened directory, not resolved once to check and again to use.
    const outside = tempDir("venom-outside-");
    writeFileSync(join(outside, "marker.txt"), "OUTSIDE\n");
    const ws = daemon.workspace;
    mkdirSync(join(ws, "flip-dir"));
    writeFileSync(join(ws, "flip-dir", "marker.txt"), "inside\n");
    symlinkSync(outside, join(ws, "flip-link"));
    const flipper = spawn(
      "perl",
      [
        "-e",
        'chdir $ARGV[0] or die; while (1) { rename "flip-dir", "sub-flip"; rename "sub-flip", "flip-dir"; rename "flip-link", "sub-flip"; rename "sub-flip", "flip-link"; }',
        ws,
      ],
      { stdio: "ignore" },
    );
    const seen = new Set<string>();
    try {
      for (let attempt = 0; attempt < 400 && !seen.has("OUTSIDE"); attempt++) {
        const raw = await RawClient.open(daemon.socket);
        raw.hello(1, { workspace: join(ws, "sub-flip"), delegation: { depth: 1, parent: "orch/x" } });
        raw.request(2, "tools/call", { name: "read", arguments: { path: "marker.txt" } });
        const reply = async (id: number) => {
          for (let n = 1; ; n++) {
            const line = await raw.next(n);
            if (line === undefined || line.id === id) return line;
          }
        };
        const hello = await reply(1);
        const read = await reply(2);
        raw.close();
        if (hello.result && read.result?.status === "ok") seen.add(read.result.content.trim());
      }
    } finally {
      flipper.kill("SIGKILL");
    }
    // The race was run: some sessions were made on the directory inside.
    expect(seen.has("inside")).toBe(true);
    expect(seen.has("OUTSIDE")).toBe(false);
  });
});
