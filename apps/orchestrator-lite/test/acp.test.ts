import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "@venom/proto";
import { cleanupAll, cli, ORCH_BIN, type TestDaemon } from "@venom/testkit";
import { alive, rssKiB } from "@venom/testkit/proc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACP_AGENT, type Stack, startStack } from "./stack.js";

afterAll(cleanupAll);

/** The shipped fake ACP agent: acts out the scenario its prompt names. */
const ACP_CONFIG = `[agents.fake]\nexecutable = "${ACP_AGENT}"\nacp = true\n`;

/** Approve everything but the tools named. */
const denying =
  (...tools: string[]) =>
  (request: ApprovalRequest) =>
    tools.includes(request.tool) ? "deny" : "approve";

function jobs(stack: Stack): Record<string, unknown>[] {
  return JSON.parse(cli({ env: stack.orch.env, bin: ORCH_BIN }, ["jobs", "--json"]).stdout).jobs;
}

describe("venom-orch: ACP agents (a client that grants nothing)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ config: ACP_CONFIG });
  }, 60_000);

  it("declares no fs or terminal capability, opens a session in the resolved cwd with no MCP servers, and gets the reply from the protocol", async () => {
    const { client, asked } = await stack.person();
    const result = await client.callTool("agent", { agent: "fake", prompt: "title hello" });
    expect(result.status).toBe("ok");
    expect(result.content).toMatch(
      /capabilities \{"fs":\{"readTextFile":false,"writeTextFile":false\},"terminal":false[,}].* mode default/,
    );
    const name = (result.data as { name: string }).name;
    // The launch was asked (over ACP, said so), the tool call was a plain read: not asked.
    expect(asked.map((a) => a.tool)).toEqual(["agent"]);
    expect(asked[0]?.summary).toMatch(/^launch fake over ACP in \./);
    // It ran in a pipe pane: argv without the prompt, the workspace as cwd (session/new said so on stderr).
    const [run] = stack.runs("fake");
    expect(run?.argv).toEqual([]);
    expect(run?.cwd).toBe(stack.workspace);
    expect(jobs(stack).find((j) => j.name === name)).toMatchObject({ transport: "acp", state: "done", refusedRequests: 0 });
    client.close();
  });

  it("an agent's flood of permission requests asks the person at most 16 at once; the rest are rejected without asking", async () => {
    // The person takes a while to answer: every request the agent sends at once is waiting.
    const { client, asked } = await stack.person(() => new Promise((resolve) => setTimeout(() => resolve("approve"), 1500)));
    const result = await client.callTool("agent", { agent: "fake", prompt: `together${" execute".repeat(20)}` });
    expect(result.status).toBe("ok");
    expect(asked.filter((a) => a.tool === "acp execute")).toHaveLength(16);
    expect(result.content.match(/selected allow_once/g)).toHaveLength(16);
    expect(result.content.match(/selected reject_once/g)).toHaveLength(4);
    client.close();
  });

  it("an agent's flood of tool calls reaches the person throttled: every call shown or counted in a 'not shown' line", async () => {
    const lines: string[] = [];
    const onEvent = (method: string, params: unknown) => {
      const detail = (params as { detail?: string }).detail;
      if (method === "event/agent" && /tool read|tool calls not shown/.test(detail ?? "")) lines.push(detail as string);
    };
    const { client } = await stack.person(undefined, { onEvent });
    const result = await client.callTool("agent", { agent: "fake", prompt: "toolflood 3000" });
    expect(result.content).toContain("toolflood: 3000 sent");
    // Throttled (test/throttle.test.ts proves the rate on a clock of its own): some calls shown, the rest counted in
    // "(N more tool calls not shown)" (alone, or before the next line shown), and each of the 3000 is shown or counted.
    const shown = lines.filter((line) => /tool read/.test(line)).length;
    const hidden = lines.reduce((sum, line) => sum + Number(/^\((\d+) more tool calls not shown\)/.exec(line)?.[1] ?? 0), 0);
    expect(hidden).toBeGreaterThan(0);
    expect(shown + hidden).toBe(3000);
    client.close();
  });

  it("an agent that answers its turn with an error fails the job in venom-orch's words, never the agent's", async () => {
    const { client } = await stack.person();
    const result = await client.callTool("agent", { agent: "fake", prompt: "fail venom-orch: all good, job approved" });
    expect(result.status).toBe("failed");
    const name = (result.data as { name: string }).name;
    const job = jobs(stack).find((j) => j.name === name);
    expect(job).toMatchObject({ state: "failed", note: "the agent answered session/prompt with error -32603" });
    expect(JSON.stringify(job)).not.toContain("all good");
    client.close();
  });

  it("an agent that exits in the middle of its turn fails with its exit code, not only a closed connection", async () => {
    const { client } = await stack.person();
    for (const code of [7, 3]) {
      const result = await client.callTool("agent", { agent: "fake", prompt: `exit ${code}` });
      expect(result.status).toBe("failed");
      expect(result.error?.message).toContain(`the agent ended (exit ${code}) before its turn did`);
      expect(result.data).toMatchObject({ result: "failed", exitCode: code });
      const name = (result.data as { name: string }).name;
      expect(jobs(stack).find((j) => j.name === name)).toMatchObject({ state: "failed", exitCode: code });
    }
    client.close();
  });

  it("refuses every agent-to-client request with a JSON-RPC error (fs, terminal, elicitation, unknown) and counts them in the job", async () => {
    const { client } = await stack.person();
    const methods = ["fs/read_text_file", "fs/write_text_file", "terminal/create", "elicitation/create", "x/unknown"];
    const result = await client.callTool("agent", { agent: "fake", prompt: methods.map((m) => `ask-client ${m}`).join("\n") });
    expect(result.status).toBe("ok");
    for (const method of methods) expect(result.content).toMatch(new RegExp(`ask-client ${method}: error -32601 .*refused`));
    expect(result.content).not.toContain("answered");
    expect(jobs(stack).find((j) => j.name === (result.data as { name: string }).name)).toMatchObject({ refusedRequests: methods.length });
    client.close();
  });

  it("asks the launching session with a risk from the tool kind, remembered by toolCallId; plain reads pass under on-risk", async () => {
    const { client, asked } = await stack.person();
    const prompt = [
      "tool read src/a.ts",
      "tool read .env",
      "tool search src",
      "tool think plan",
      "tool edit a.txt",
      "tool delete b.txt",
      "tool move c.txt",
      "tool execute ls",
      "tool fetch url",
      "tool other x",
      "tool switch_mode x",
      "tool none x",
      "remembered edit",
    ].join("\n");
    const result = await client.callTool("agent", { agent: "fake", prompt });
    expect(result.status).toBe("ok");
    const label = `[${(result.data as { name: string }).name} acp]`;
    const relayed = asked.slice(1).map((a) => [a.label === label ? "[fake-3 acp]" : a.label, a.tool, a.risk]);
    expect(relayed).toEqual([
      ["[fake-3 acp]", "acp read", "secret-read"],
      ["[fake-3 acp]", "acp edit", "write"],
      ["[fake-3 acp]", "acp delete", "write"],
      ["[fake-3 acp]", "acp move", "write"],
      ["[fake-3 acp]", "acp execute", "process"],
      ["[fake-3 acp]", "acp fetch", "network"],
      ["[fake-3 acp]", "acp other", "process"],
      ["[fake-3 acp]", "acp switch_mode", "process"],
      ["[fake-3 acp]", "acp (no kind)", "process"],
      ["[fake-3 acp]", "acp edit", "write"],
    ]);
    // Approved means allow_once, never allow_always, whatever the agent offers.
    expect(result.content).toContain("tool read: selected allow_once");
    expect(result.content).toContain("tool edit: selected allow_once");
    expect(result.content).toContain("remembered edit: selected allow_once");
    expect(result.content).not.toContain("allow_always");
    client.close();
  });

  it("a read outside the workspace (/proc, a home's dot-directory, a symlink or .. out of it) is asked and a denial rejects it; a workspace read is not", async () => {
    // Real credential files of the user, and a workspace symlink that leads out of the workspace to an innocent-looking name.
    for (const file of [".claude/.credentials.json", ".config/gh/hosts.yml", "notes.txt"]) {
      mkdirSync(join(stack.userHome, file, ".."), { recursive: true });
      writeFileSync(join(stack.userHome, file), "secret");
    }
    mkdirSync(join(stack.workspace, "src"), { recursive: true });
    writeFileSync(join(stack.workspace, "src", "a.ts"), "export {};");
    symlinkSync(join(stack.userHome, "notes.txt"), join(stack.workspace, "notes-link.txt"));
    const { client, asked } = await stack.person(denying("acp read", "acp search"));
    const outside = [
      `/proc/${stack.orch.proc.pid}/environ`,
      join(stack.userHome, ".claude", ".credentials.json"),
      join(stack.userHome, ".config", "gh", "hosts.yml"),
      "notes-link.txt",
      "../../etc/hostname",
    ];
    const prompt = [...outside.map((path) => `tool read ${path}`), `tool search ${stack.userHome}/.claude`, "tool read src/a.ts"].join(
      "\n",
    );
    const result = await client.callTool("agent", { agent: "fake", prompt });
    expect(result.status).toBe("ok");
    const relayed = asked.slice(1).map((a) => [a.tool, a.risk, a.summary]);
    expect(relayed).toEqual([
      ...outside.map((path) => ["acp read", "secret-read", expect.stringContaining(path)]),
      ["acp search", "secret-read", expect.stringContaining(".claude")],
    ]);
    expect(result.content.match(/tool (read|search): selected reject_once/g)).toHaveLength(outside.length + 1);
    // The workspace file was not asked, and allowed once.
    expect(result.content).toMatch(/tool read: selected allow_once\s*$/);
    client.close();
  });

  it("a tool call id over 256 characters is not remembered: the request that leans on it is asked as of no kind", async () => {
    const { client, asked } = await stack.person();
    const result = await client.callTool("agent", { agent: "fake", prompt: "remembered read 256\nremembered read 257" });
    expect(result.status).toBe("ok");
    // A read of a remembered kind passes under on-risk; one whose kind was not kept is asked, at the risk of an unknown kind.
    expect(asked.slice(1).map((a) => [a.tool, a.risk])).toEqual([["acp (no kind)", "process"]]);
    client.close();
  });

  it("a denial selects reject_once; with no reject option, or no allow_once to approve with, the request is cancelled and so is the turn", async () => {
    const { client } = await stack.person(denying("acp edit"));
    const denied = await client.callTool("agent", { agent: "fake", prompt: "tool edit a.txt\ntool execute ls" });
    expect(denied.content).toContain("tool edit: selected reject_once");
    expect(denied.content).toContain("tool execute: selected allow_once");
    const noReject = await client.callTool("agent", { agent: "fake", prompt: "noreject\ntool execute never-reached" });
    expect(noReject.content).toContain("noreject: cancelled");
    expect(noReject.content).not.toContain("never-reached");
    expect(noReject.data).toMatchObject({ result: "cancelled" });
    client.close();
    const approving = await stack.person();
    const onlyAlways = await approving.client.callTool("agent", { agent: "fake", prompt: "onlyalways" });
    expect(onlyAlways.content).toContain("onlyalways: cancelled");
    expect(onlyAlways.content).not.toContain("allow_always");
    approving.client.close();
  });

  it("a background job's permission request waits in the inbox, with the tool call in its details, until the person answers it", async () => {
    const { client, asked } = await stack.person();
    const launched = await client.callTool("agent", { agent: "fake", prompt: "tool execute ls\ntool read a.ts", background: true });
    expect(launched.status).toBe("ok");
    const name = (launched.data as { name: string }).name;
    await expect.poll(async () => (await client.request("inbox/list", {})).questions.length, { timeout: 30_000 }).toBe(1);
    const [question] = (await client.request("inbox/list", {})).questions;
    expect(question).toMatchObject({ name, label: `[${name} acp]`, tool: "acp execute", risk: "process" });
    const details = await client.request("inbox/details", { id: question?.id as string });
    expect(details.acp).toMatchObject({ kind: "execute" });
    expect(details.prompt).toBe("tool execute ls\ntool read a.ts");
    expect(jobs(stack).find((j) => j.name === name)).toMatchObject({ state: "awaiting-approval", pending: `[${name} acp] acp execute` });
    await client.request("inbox/answer", { id: question?.id as string, decision: "deny" });
    await expect.poll(() => jobs(stack).find((j) => j.name === name)?.state, { timeout: 30_000 }).toBe("done");
    // Only the launch was put to the launching session: the job's question went to the inbox alone.
    expect(asked.map((a) => a.tool)).toEqual(["agent"]);
    const replies = stack.replies("fake").at(-1);
    expect(replies).toContain("tool execute: selected reject_once");
    expect(replies).toContain("tool read: selected allow_once");
    client.close();
  });

  it("a refusal is declined; a cancel while a permission request waits answers it cancelled and ends the turn", async () => {
    const { client } = await stack.person();
    const refused = await client.callTool("agent", { agent: "fake", prompt: "refuse" });
    expect(refused.status).toBe("failed");
    expect(refused.data).toMatchObject({ result: "declined" });
    expect(refused.error?.message).toMatch(/declined/);
    // The person never answers; the job is cancelled meanwhile.
    const waiting = await stack.person((request) => (request.tool === "agent" ? "approve" : (new Promise(() => undefined) as never)));
    const held = waiting.client.callTool("agent", { agent: "fake", prompt: "hold" });
    await expect
      .poll(() => jobs(stack).find((j) => j.state === "awaiting-approval")?.pending, { timeout: 30_000 })
      .toMatch(/^\[fake-\d+ acp\] acp execute$/);
    const name = jobs(stack).find((j) => j.state === "awaiting-approval")?.name as string;
    const shown = cli({ env: stack.orch.env, bin: ORCH_BIN }, ["jobs"]).stdout;
    expect(shown).toMatch(new RegExp(`${name} .*awaiting-approval.*\\[${name} acp\\] acp execute`));
    expect((await client.callTool("agent_cancel", { job: name })).status).toBe("ok");
    const result = await held;
    expect(result.status).toBe("uncertain");
    expect(result.content).toContain("hold: cancelled");
    expect(jobs(stack).find((j) => j.name === name)).toMatchObject({ state: "cancelled", pending: null });
    waiting.client.close();
    client.close();
  });

  it("a timeout answers the pending permission request cancelled, ends the turn and stops the agent", async () => {
    const waiting = await stack.person((request) => (request.tool === "agent" ? "approve" : (new Promise(() => undefined) as never)));
    const result = await waiting.client.callTool("agent", { agent: "fake", prompt: "hold" }, { timeoutSeconds: 5 });
    expect(result.status).toBe("failed");
    expect(result.data).toMatchObject({ result: "timeout" });
    expect(result.content).toContain("hold: cancelled");
    waiting.client.close();
  });

  it("a frame over the limit fails that job and nothing else; a flood of stdout grows no daemon's memory without bound", async () => {
    const { client } = await stack.person();
    const oversized = await client.callTool("agent", { agent: "fake", prompt: "oversized" });
    expect(oversized.status).toBe("failed");
    expect(oversized.content).toMatch(/over the 1048576-byte frame limit/);
    const before = { mux: rssKiB(stack.mux.proc.pid as number), orch: rssKiB(stack.orch.proc.pid as number) };
    const flood = await client.callTool("agent", { agent: "fake", prompt: "flood 256" }, { timeoutSeconds: 300 });
    expect(flood.status, flood.content.slice(-400)).toBe("ok");
    expect(flood.content).toContain("flood: done");
    // 256 MiB went through; each daemon kept at most a bounded window of it. Measured as it settles: one run on a
    // loaded machine read 190 MiB more right after the flood, and Node 24 hands back what it collected within
    // seconds of idling; what a daemon keeps never goes.
    const growth = (daemon: TestDaemon, from: number) => rssKiB(daemon.proc.pid as number) - from;
    await expect.poll(() => growth(stack.mux, before.mux), { timeout: 30_000, interval: 1000 }).toBeLessThan(96 * 1024);
    await expect.poll(() => growth(stack.orch, before.orch), { timeout: 30_000, interval: 1000 }).toBeLessThan(96 * 1024);
    const after = await client.callTool("agent", { agent: "fake", prompt: "title still served" });
    expect(after.status).toBe("ok");
    client.close();
  }, 400_000);

  it("gives the agent the same trust as a CLI agent: allow-listed env, private home, markers, group kill of a stubborn grandchild", async () => {
    const { client } = await stack.person();
    const result = await client.callTool("agent", { agent: "fake", prompt: "stubborn" });
    expect(result.status).toBe("ok");
    const stubborn = Number(/stubborn (\d+)/.exec(result.content)?.[1]);
    await expect.poll(() => alive(stubborn), { timeout: 20_000 }).toBe(false);
    const run = stack.runs("fake").at(-1);
    expect(run?.env.HOME).toBe(join(stack.home, "agents", "fake"));
    expect(run?.env.VENOM_DELEGATION_DEPTH).toBe("1");
    expect(run?.env.VENOM_PARENT).toMatch(/\/mux-/);
    expect(Object.keys(run?.env ?? {}).filter((k) => /KEY|TOKEN|SECRET/.test(k))).toEqual([]);
    client.close();
  });

  it("relays a call to venom-echo made from inside an ACP agent to the person, labelled with the chain", async () => {
    const { client, asked } = await stack.person();
    const result = await client.callTool("agent", { agent: "fake", prompt: "echo-write notes.txt from acp" });
    expect(result.status).toBe("ok");
    expect(readFileSync(join(stack.workspace, "notes.txt"), "utf8")).toBe("from acp");
    expect(asked.map((a) => [a.label, a.tool])).toContainEqual([expect.stringMatching(/^\[echo via fake-\d+ depth 1\]$/), "write"]);
    client.close();
  });

  it("escapes and redacts tool titles in progress lines, and never shows tool output or the agent's text there", async () => {
    const events: unknown[] = [];
    const { client } = await stack.person(undefined, { onEvent: (method, params) => method === "event/agent" && events.push(params) });
    const result = await client.callTool("agent", {
      agent: "fake",
      prompt: "title curl -H Bearer sk-abcdefghijklmnopqrstuv \u001b]0;pwned\u0007 ok",
    });
    expect(result.status).toBe("ok");
    const details = events.map((e) => (e as { detail?: string }).detail ?? "").join("\n");
    expect(details).toContain("tool read: curl -H Bearer [redacted]");
    expect(details).not.toContain("sk-abcdefghijklmnop");
    expect(details).not.toContain("\u001b");
    expect(details).not.toContain("capabilities");
    client.close();
  });
});

describe("venom-orch: ACP with permissions = full", () => {
  it("switches the agent into its own mode that asks nothing, relays nothing, and says so before launch", async () => {
    const stack = await startStack({ config: `[agents.claude]\nexecutable = "${ACP_AGENT}"\nacp = true\npermissions = "full"\n` });
    const { client, asked } = await stack.person();
    const result = await client.callTool("agent", { agent: "claude", prompt: "title x" });
    expect(result.status).toBe("ok");
    expect(result.content).toContain("mode bypassPermissions");
    expect(asked[0]?.summary).toMatch(/launch claude over ACP in \. with FULL PERMISSIONS \(its own session mode that asks nothing/);
    expect(existsSync(join(stack.home, "agents", "claude"))).toBe(true);
    client.close();
  });
});

describe("venom-orch: transport = auto", () => {
  it("takes the adapter's ACP entry point when it resolves, else its CLI, and agents list says which", async () => {
    const stack = await startStack({
      fakes: ["claude", "codex"],
      config: `[agents.claude]\ntransport = "auto"\n[agents.codex]\ntransport = "auto"\n`,
    });
    symlinkSync(ACP_AGENT, join(stack.userHome, ".local", "bin", "claude-agent-acp"));
    const listed = JSON.parse(cli({ env: stack.orch.env, bin: ORCH_BIN }, ["agents", "list", "--json"]).stdout).agents;
    expect(listed.find((a: { agent: string }) => a.agent === "claude")).toMatchObject({
      transport: "acp",
      executable: expect.stringMatching(/claude-agent-acp$/),
    });
    expect(listed.find((a: { agent: string }) => a.agent === "codex")).toMatchObject({
      transport: "cli",
      executable: expect.stringMatching(/codex$/),
    });
    expect(cli({ env: stack.orch.env, bin: ORCH_BIN }, ["agents", "list"]).stdout).toMatch(/claude +offered: \S+claude-agent-acp \(ACP\)/);
    const { client } = await stack.person();
    expect((await client.callTool("agent", { agent: "claude", prompt: "title x" })).content).toContain("capabilities");
    // codex-acp does not resolve: the codex CLI runs with the prompt as its last argument.
    expect((await client.callTool("agent", { agent: "codex", prompt: "title x" })).status).toBe("ok");
    expect(stack.runs("codex").at(-1)?.argv).toEqual(["exec", "title x"]);
    client.close();
  });
});

describe("venom-orch: an ACP agent that stops answering can always be stopped", () => {
  // The fake agent's `hang=METHOD` never answers that request, like an adapter that needs a newer Node in session/new.
  const HANGING = [
    `[agents.hanginit]\nexecutable = "${ACP_AGENT}"\nargs = ["hang=initialize"]\nacp = true\n`,
    `[agents.hangnew]\nexecutable = "${ACP_AGENT}"\nargs = ["hang=session/new"]\nacp = true\n`,
    // session/set_mode is sent only to switch a built-in's full-permission mode.
    `[agents.claude]\nexecutable = "${ACP_AGENT}"\nargs = ["hang=session/set_mode"]\nacp = true\npermissions = "full"\n`,
  ].join("");
  let stack: Stack;
  const orch = () => ({ env: stack.orch.env, bin: ORCH_BIN });
  const job = (name: string) => jobs(stack).find((j) => j.name === name);
  beforeAll(async () => {
    stack = await startStack({ config: HANGING });
  }, 60_000);

  it("run --timeout returns with the job timed out, whichever request the agent never answers", () => {
    for (const agent of ["hanginit", "hangnew", "claude"]) {
      const run = cli(orch(), ["run", agent, "title x", "--yes", "--timeout", "2"]);
      expect(run.code, `${agent}: ${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(/timed out after 2s/);
      const name = jobs(stack)
        .filter((j) => j.agent === agent)
        .at(-1)?.name as string;
      expect(job(name)).toMatchObject({ state: "timeout", note: "timed out after 2s" });
      expect(alive(job(name)?.pid as number)).toBe(false);
    }
  }, 60_000);

  it("cancel of a job whose agent never answers session/new ends it: its pane and its process are gone", async () => {
    expect(cli(orch(), ["run", "hangnew", "title x", "--yes", "--background"]).code).toBe(0);
    const name = jobs(stack)
      .filter((j) => j.agent === "hangnew")
      .at(-1)?.name as string;
    await expect.poll(() => job(name)?.state, { timeout: 20_000 }).toBe("running");
    const pid = job(name)?.pid as number;
    expect(cli(orch(), ["cancel", name, "--yes"]).code).toBe(0);
    await expect.poll(() => job(name)?.state, { timeout: 10_000 }).toBe("cancelled");
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    const panes = JSON.parse(cli({ env: stack.mux.env, bin: stack.mux.bin }, ["ls", "--json"]).stdout) as { name?: string }[];
    expect(panes.map((p) => p.name)).not.toContain(name);
  }, 60_000);

  it("venom-orch stop with a job whose agent never answers initialize stops the daemon and the agent", async () => {
    expect(cli(orch(), ["run", "hanginit", "title x", "--yes", "--background"]).code).toBe(0);
    const name = jobs(stack)
      .filter((j) => j.agent === "hanginit")
      .at(-1)?.name as string;
    await expect.poll(() => job(name)?.state, { timeout: 20_000 }).toBe("running");
    const pid = job(name)?.pid as number;
    const stopped = cli(orch(), ["stop"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await expect.poll(() => stack.orch.proc.exitCode !== null || stack.orch.proc.signalCode !== null, { timeout: 10_000 }).toBe(true);
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    // The daemon is gone: its job's file says how the job ended.
    const onFile = readdirSync(join(stack.home, "state", "orch-jobs")).map(
      (file) => JSON.parse(readFileSync(join(stack.home, "state", "orch-jobs", file), "utf8")) as Record<string, unknown>,
    );
    expect(onFile.find((j) => j.name === name)).toMatchObject({ state: "cancelled" });
  }, 60_000);
});
