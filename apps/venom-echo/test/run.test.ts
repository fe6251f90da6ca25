import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, connect, ECHO_BIN, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it, vi } from "vitest";

afterAll(cleanupAll);

const approve = { gate: async () => "approve" as const };

/** Live (non-zombie) processes whose pid is listed in `file`, one per line. */
function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return !/^\d+ \(.*\) [ZX] /.test(stat);
    } catch {
      return false;
    }
  });
}
const pidsIn = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map(Number) : []);

/** Wait for `fn` to give a value, with headroom for a loaded 2-core machine. */
function until<T>(fn: () => T | undefined): Promise<T> {
  return vi.waitFor(
    () => {
      const value = fn();
      if (!value) throw new Error("condition never held");
      return value;
    },
    { timeout: 45_000, interval: 50 },
  );
}

// Tests that are not about `command` (bash -lc) run bash -c through argv: a login shell's profile
// (here, pyenv's rehash lock) can take seconds on a loaded machine and is not what they test.
describe("run (spec, Tool rules: bash)", () => {
  it("asks for approval; without a gate nothing runs; approved, argv runs without a shell and output comes back", async () => {
    const daemon = await startEcho();
    const noGate = await connect(daemon);
    expect((await noGate.callTool("run", { command: "touch ran" })).status).toBe("denied");
    expect(existsSync(join(daemon.workspace, "ran"))).toBe(false);
    noGate.close();
    const client = await connect(daemon, approve);
    const shell = await client.callTool("run", { argv: ["echo", "$HOME;", "not", "expanded"] });
    expect(shell).toMatchObject({ status: "ok", content: "$HOME; not expanded\n", data: { exitCode: 0 } });
    const bash = await client.callTool("run", { command: "echo from-bash; exit 3" });
    expect(bash).toMatchObject({
      status: "failed",
      content: "from-bash\n",
      error: { message: "the process exited with code 3", retry: "forbidden" },
    });
    client.close();
    await daemon.stop();
  });

  it("a timeout kills the whole group at once, including a grandchild that ignores TERM", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon, approve);
    const script = `trap '' TERM; (trap '' TERM; sleep 300) & echo $! >> pids; echo $$ >> pids; sleep 300`;
    // bash -c, not the tool's `command` (bash -lc): a login shell's profile (pyenv rehash, say) can outlast
    // the deadline on a loaded machine, and the group would be killed before the script wrote its pids.
    const result = await client.callTool("run", { argv: ["bash", "-c", script] }, { timeoutSeconds: 3 });
    expect(result).toMatchObject({ status: "failed", error: { message: "timed out after 3s: the process group was killed" } });
    const pids = pidsIn(join(daemon.workspace, "pids"));
    expect(pids.length).toBe(2);
    expect(alive(pids)).toEqual([]);
    client.close();
    await daemon.stop();
  });

  it("output is bounded (the tail is kept) and `yes` still returns", async () => {
    const daemon = await startEcho({ config: "[tools]\nmax_output_bytes = 4096\n" });
    const client = await connect(daemon, approve);
    const result = await client.callTool("run", { argv: ["bash", "-c", "yes | head -c 10000000; echo END"] });
    expect(result.status).toBe("ok");
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(4096);
    expect(result.content).toMatch(/END\n$/);
    expect(result.data).toMatchObject({ truncated: true });
    client.close();
    await daemon.stop();
  });

  it("cancel gives the group TERM first, then the call is uncertain with retry forbidden", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon, approve);
    const pending = client.callTool(
      "run",
      { argv: ["bash", "-c", "trap 'echo got-term > termed; exit 0' TERM; echo $$ > pid; while :; do sleep 0.1; done"] },
      { callId: "cancel-me" },
    );
    await until(() => existsSync(join(daemon.workspace, "pid")));
    expect(await client.request("tools/cancel", { callId: "cancel-me" })).toEqual({ cancelled: true });
    const result = await pending;
    expect(result).toMatchObject({ status: "uncertain", error: { retry: "forbidden" } });
    expect(readFileSync(join(daemon.workspace, "termed"), "utf8")).toBe("got-term\n");
    expect(alive(pidsIn(join(daemon.workspace, "pid")))).toEqual([]);
    client.close();
    await daemon.stop();
  });

  it("a call cancelled while its approval is being asked is denied, and nothing runs", async () => {
    const daemon = await startEcho();
    let asked = false;
    // A person who never answers: only the cancel can end the call.
    const client = await connect(daemon, {
      gate: () => {
        asked = true;
        return new Promise<"approve">(() => {});
      },
    });
    const pending = client.callTool("run", { argv: ["touch", "ran"] }, { callId: "cancel-while-asked" });
    await until(() => asked);
    expect(await client.request("tools/cancel", { callId: "cancel-while-asked" })).toEqual({ cancelled: true });
    expect(await pending).toMatchObject({ status: "denied", error: { message: "the call was cancelled while waiting for approval" } });
    expect(existsSync(join(daemon.workspace, "ran"))).toBe(false);
    client.close();
    await daemon.stop();
  });

  it("a process a tool started is a delegate: its `venom-echo stop` is refused, by markers and (under env -i) by ancestry", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon, approve);
    const stop = `${process.execPath} ${ECHO_BIN} stop`;
    const marked = await client.callTool("run", { command: `${stop}; echo "exit=$?"; env | grep ^VENOM_ | sort` });
    expect(marked.content).toMatch(/refused: this process runs under a Venom delegation \(depth 1\)/);
    expect(marked.content).toMatch(/exit=3/);
    expect(marked.content).toMatch(/VENOM_DELEGATION_DEPTH=1\nVENOM_HOME=.*\nVENOM_PARENT=[0-9a-f-]+\/echo-/);
    // With the environment cleared the CLI cannot tell, but the daemon finds the recorded ancestor.
    const status = await client.callTool("run", {
      command: `env -i VENOM_HOME=${daemon.home} ${process.execPath} ${ECHO_BIN} status --json`,
    });
    expect(JSON.parse(status.content).principal).toMatchObject({ kind: "delegate", depth: 1, evidence: ["ancestry"] });
    const cleared = await client.callTool("run", {
      command: `env -i VENOM_HOME=${daemon.home} ${process.execPath} ${ECHO_BIN} stop; echo "exit=$?"`,
    });
    expect(cleared.content).toMatch(/refused: daemon\/stop needs the owner context; you are a delegate at depth 1 \(evidence: ancestry\)/);
    // Refused by the daemon on its own evidence: the same exit code as the CLI's own refusal.
    expect(cleared.content).toMatch(/exit=3/);
    expect((await client.callTool("echo", { text: "still alive" })).content).toBe("still alive");
    client.close();
    await daemon.stop();
  });

  it("the delegation record appears while the process runs and disappears when it ends; no *_API_KEY reaches it", async () => {
    const daemon = await startEcho({ env: { SERVICE_API_KEY: "canary-run-key" } });
    const client = await connect(daemon, approve);
    const records = join(daemon.home, "state", "delegations");
    const pending = client.callTool("run", { argv: ["bash", "-c", "env > env.txt; sleep 1"] });
    const seen = await until(() => {
      const files = readdirSync(records);
      return files.length > 0 ? files : undefined;
    });
    const record = JSON.parse(readFileSync(join(records, seen[0] as string), "utf8"));
    expect(record).toMatchObject({ depth: 1, workspace: expect.any(String), grant: { policy: "on-risk" } });
    expect((await pending).status).toBe("ok");
    expect(readdirSync(records)).toEqual([]);
    expect(readFileSync(join(daemon.workspace, "env.txt"), "utf8")).not.toContain("canary-run-key");
    client.close();
    await daemon.stop();
  });

  it("after kill -9 of the daemon, a restarted daemon stops the orphaned process group", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon, approve);
    void client.callTool("run", { argv: ["bash", "-c", "sleep 300 & echo $! > pids; echo $$ >> pids; wait"] }).catch(() => undefined);
    // Both processes run and the daemon's record of them is on disk (it is written with an fsync, which on a
    // loaded machine can finish after bash has already written its pids).
    const delegations = join(daemon.home, "state", "delegations");
    const pids = await until(() => {
      const list = pidsIn(join(daemon.workspace, "pids"));
      const recorded = existsSync(delegations) && readdirSync(delegations).some((name) => name.endsWith(".json"));
      return list.length === 2 && recorded ? list : undefined;
    });
    daemon.proc.kill("SIGKILL");
    await new Promise((r) => daemon.proc.once("exit", r));
    expect(alive(pids).length).toBe(2); // orphaned: still running with nobody to stop them
    const again = await startEcho({ home: daemon.home, workspace: daemon.workspace });
    expect(alive(pids)).toEqual([]);
    expect(readdirSync(delegations)).toEqual([]);
    client.close();
    await again.stop();
  });

  it("a cwd outside the workspace, through a symlink, or with .. is refused and nothing runs", async () => {
    const daemon = await startEcho();
    execFileSync("ln", ["-s", "/tmp", join(daemon.workspace, "out")]);
    const client = await connect(daemon, approve);
    for (const cwd of ["/tmp", "out", "../", "sub/../.."]) {
      const result = await client.callTool("run", { argv: ["touch", "escaped-marker"], cwd });
      expect(result.status, cwd).toBe("failed");
    }
    expect(existsSync("/tmp/escaped-marker")).toBe(false);
    client.close();
    await daemon.stop();
  });

  it("delegation depth over agent.max_delegation_depth is refused before anything starts", async () => {
    const daemon = await startEcho({ config: "[agent]\nmax_delegation_depth = 1\n" });
    const child = spawn(process.execPath, [ECHO_BIN, "call", "run", JSON.stringify({ command: "touch deep" })], {
      env: { ...daemon.env, VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "test/x" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    await new Promise((r) => child.once("exit", r));
    expect(stderr).toMatch(/(needs approval|depth 2, over the limit of 1)/);
    expect(existsSync(join(daemon.workspace, "deep"))).toBe(false);
    await daemon.stop();
  });
});
