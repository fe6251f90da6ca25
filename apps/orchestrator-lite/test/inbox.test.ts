import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import type { InboxQuestion } from "../src/inbox.js";
import { ACP_AGENT, type Stack, startStack } from "./stack.js";

afterAll(cleanupAll);

const orchCli = (stack: Stack, args: string[], env: NodeJS.ProcessEnv = {}) => cli({ env: stack.orch.env, bin: stack.orch.bin }, args, env);

/** The questions waiting, as `venom-orch inbox --json` prints them (no terminal here). */
function inbox(stack: Stack): InboxQuestion[] {
  const listed = orchCli(stack, ["inbox", "--json"]);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { questions: InboxQuestion[] }).questions;
}

async function waitingFor(stack: Stack, count: number): Promise<InboxQuestion[]> {
  await expect.poll(() => inbox(stack).length, { timeout: 20_000 }).toBe(count);
  return inbox(stack);
}

/**
 * A background job the person approved the launch of (`venom-orch run --background` on a terminal asks for it; with
 * `--yes` the launcher's autoApprove would answer the job's questions too).
 */
async function launch(stack: Stack, prompt: string): Promise<void> {
  const { client } = await stack.person((request) => (request.tool === "agent" ? "approve" : "deny"));
  try {
    expect((await client.callTool("agent", { agent: "demo", prompt, background: true })).status).toBe("ok");
  } finally {
    client.close();
  }
}

function job(stack: Stack, name: string): Record<string, unknown> | undefined {
  const jobs = JSON.parse(orchCli(stack, ["jobs", "--json"]).stdout) as { jobs: Record<string, unknown>[] };
  return jobs.jobs.find((j) => j.name === name);
}

async function ended(stack: Stack, name: string): Promise<Record<string, unknown>> {
  await expect.poll(() => job(stack, name)?.state, { timeout: 20_000 }).toMatch(/^(done|failed|cancelled)$/);
  return job(stack, name) as Record<string, unknown>;
}

describe("the inbox", () => {
  it("a background job's write waits for the person; approve and deny name one question each; history says who answered", async () => {
    const stack = await startStack();
    await launch(stack, "write one.txt first");
    const [first] = await waitingFor(stack, 1);
    expect(first).toMatchObject({ name: "demo-1", label: "[echo via demo-1 depth 1]", tool: "write", risk: "write" });
    expect(first?.summary).toContain("one.txt");
    // The job says what it waits for, and nothing was written meanwhile.
    expect(job(stack, "demo-1")).toMatchObject({ state: "awaiting-approval", pending: "[echo via demo-1 depth 1] write" });
    expect(existsSync(join(stack.workspace, "one.txt"))).toBe(false);

    const approved = orchCli(stack, ["approve", first?.id as string]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe("approved: demo-1 [echo via demo-1 depth 1] write\n");
    expect((await ended(stack, "demo-1")).state).toBe("done");
    expect(readFileSync(join(stack.workspace, "one.txt"), "utf8")).toBe("first");

    // The same id again: it names a question that was answered, and says so; it never reaches another question.
    await launch(stack, "write two.txt second");
    const [second] = await waitingFor(stack, 1);
    const again = orchCli(stack, ["approve", first?.id as string]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/question q[0-9a-f]{16} is no longer waiting: answered in the inbox/);
    expect(inbox(stack).map((q) => q.id)).toEqual([second?.id]);
    const unknown = orchCli(stack, ["deny", "q0123456789abcdef"]);
    expect(unknown.stderr).toMatch(/no question q0123456789abcdef in the inbox/);
    expect(orchCli(stack, ["deny", "not-an-id"]).stderr).toMatch(/a question id as `venom-orch inbox` lists it/);

    const denied = orchCli(stack, ["deny", second?.id as string, "--reason", "not now"]);
    expect(denied.code, denied.stderr).toBe(0);
    expect((await ended(stack, "demo-2")).state).toBe("failed");
    expect(existsSync(join(stack.workspace, "two.txt"))).toBe(false);

    const history = JSON.parse(orchCli(stack, ["history", "--json"]).stdout).entries as Record<string, unknown>[];
    expect(history.map((e) => [e.name, e.tool, e.decision, e.by])).toEqual([
      ["demo-1", "write", "approve", "inbox"],
      ["demo-2", "write", "deny", "inbox"],
    ]);
    expect(history[1]).toMatchObject({ reason: "not now", label: "[echo via demo-2 depth 1]", risk: "write" });
    const file = join(stack.home, "logs", "approvals.jsonl");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(orchCli(stack, ["history", "--job", "demo-2"]).stdout).toMatch(
      /^\S+ demo-2 \[echo via demo-2 depth 1\] write \(write\) denied by inbox: not now\n/,
    );
  });

  it("a foreground job's question is put to its terminal and the inbox at once: the first answer wins, and the other is told", async () => {
    const stack = await startStack();
    // The launching session sees the question and leaves it; it hears when the inbox answered.
    const events: unknown[] = [];
    let shown: (id: string) => void = () => undefined;
    const shownId = new Promise<string>((resolve) => {
      shown = resolve;
    });
    const slow = await stack.person(
      (request) => {
        if (request.tool === "agent") return "approve";
        shown(request.questionId as string);
        return new Promise(() => undefined);
      },
      { onEvent: (method, params) => method === "approval/settled" && events.push(params) },
    );
    const running = slow.client.callTool("agent", { agent: "demo", prompt: "write fg.txt from-inbox" });
    const id = await shownId;
    expect(inbox(stack).map((q) => q.id)).toEqual([id]);
    expect(orchCli(stack, ["approve", id]).code).toBe(0);
    expect((await running).status).toBe("ok");
    expect(readFileSync(join(stack.workspace, "fg.txt"), "utf8")).toBe("from-inbox");
    expect(events).toEqual([{ questionId: id, decision: "approve", by: "inbox" }]);
    slow.client.close();

    // The terminal answers first: the inbox forgets the question, and a late answer there says who answered.
    let askedId = "";
    const quick = await stack.person((request) => {
      if (request.questionId) askedId = request.questionId;
      return request.tool === "agent" ? "approve" : "deny";
    });
    expect((await quick.client.callTool("agent", { agent: "demo", prompt: "write fg2.txt x" })).status).toBe("failed");
    expect(existsSync(join(stack.workspace, "fg2.txt"))).toBe(false);
    expect(inbox(stack)).toEqual([]);
    expect(orchCli(stack, ["approve", askedId]).stderr).toMatch(/no longer waiting: answered on the launching terminal/);
    const history = JSON.parse(orchCli(stack, ["history", "--json"]).stdout).entries as Record<string, unknown>[];
    expect(history.map((e) => [e.name, e.decision, e.by])).toEqual([
      ["demo-1", "approve", "inbox"],
      ["demo-2", "deny", "terminal"],
    ]);
    quick.client.close();
  });

  it("at most 16 questions of one job wait: an ACP agent that asks 20 at once gets the rest rejected without asking", async () => {
    const stack = await startStack({ config: `[agents.fake]\nexecutable = "${ACP_AGENT}"\nacp = true\n` });
    const { client } = await stack.person((request) => (request.tool === "agent" ? "approve" : "deny"));
    const prompt = `together ${Array.from({ length: 20 }, () => "execute").join(" ")}`;
    expect((await client.callTool("agent", { agent: "fake", prompt, background: true })).status).toBe("ok");
    const waiting = await waitingFor(stack, 16);
    // None beyond the bound arrives later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inbox(stack)).toHaveLength(16);
    for (const question of waiting) expect(orchCli(stack, ["deny", question.id]).code).toBe(0);
    expect((await ended(stack, "fake-1")).state).toBe("done");
    expect(
      stack
        .replies("fake")
        .at(-1)
        ?.match(/execute selected reject_once/g),
    ).toHaveLength(20);
    client.close();
  });

  it("a nested chain's questions reach the one inbox through the job that launched it, labelled with the chain", async () => {
    const stack = await startStack({ config: `[agents.venom]\nargs = ["run", "demo", "--"]\n` });
    const { client } = await stack.person((request) => (request.tool === "agent" ? "approve" : "deny"));
    const launched = await client.callTool("agent", { agent: "venom", prompt: "write deep.txt nested", background: true });
    expect(launched.status).toBe("ok");
    const [launch] = await waitingFor(stack, 1);
    expect(launch).toMatchObject({ name: "venom-1", label: "[orch via venom-1 depth 1]", tool: "agent" });
    expect(orchCli(stack, ["approve", launch?.id as string]).code).toBe(0);
    await expect.poll(() => inbox(stack)[0]?.tool, { timeout: 20_000 }).toBe("write");
    const [write] = inbox(stack);
    expect(write).toMatchObject({ name: "venom-1", label: "[echo via demo-1 depth 2 via venom-1 depth 1]" });
    expect(orchCli(stack, ["approve", write?.id as string]).code).toBe(0);
    expect((await ended(stack, "venom-1")).state).toBe("done");
    expect(readFileSync(join(stack.workspace, "deep.txt"), "utf8")).toBe("nested");
    client.close();
  });

  it("the history is redacted as progress lines are, 0600, and rotated at 4 MiB into approvals.1.jsonl", async () => {
    const stack = await startStack();
    const logs = join(stack.home, "logs");
    const file = join(logs, "approvals.jsonl");
    // Older history, at the rotation size: the next line starts a new file.
    const at = new Date(0).toISOString();
    const entry = { askedAt: at, answeredAt: at, job: "old", name: "old-1", label: "[echo]", tool: "write", risk: "write" };
    const old = `${JSON.stringify({ ...entry, summary: "write x", by: "inbox", decision: "deny" })}\n`;
    writeFileSync(file, old.repeat(Math.ceil((4 * 1024 * 1024) / old.length)), { mode: 0o600 });
    const token = "sk-ant-abcdefghijklmnopqrstuvwxyz0123456789";
    await launch(stack, `write ${token}.txt x`);
    const [question] = await waitingFor(stack, 1);
    expect(question?.summary).toContain(token);
    expect(orchCli(stack, ["deny", question?.id as string, "--reason", `key ${token}`]).code).toBe(0);
    await ended(stack, "demo-1");
    const current = readFileSync(file, "utf8");
    expect(current.trim().split("\n")).toHaveLength(1);
    expect(current).not.toContain(token);
    expect(current).toContain("[redacted]");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(logs, "approvals.1.jsonl"), "utf8").startsWith(old)).toBe(true);
    // Both files are read: the older history, then the newer.
    const history = JSON.parse(orchCli(stack, ["history", "--job", "demo-1", "--json"]).stdout).entries as Record<string, unknown>[];
    expect(history).toEqual([expect.objectContaining({ name: "demo-1", decision: "deny", reason: "key [redacted]" })]);
    const { stdout } = spawnSync(process.execPath, [stack.orch.bin, "history", "--job", "old", "--json"], {
      env: stack.orch.env,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(JSON.parse(stdout).entries.length).toBeGreaterThan(1000);
  });

  it("a question nobody answers is denied after approval.wait_seconds, and the job's record says so", async () => {
    const stack = await startStack({ config: "[approval]\nwait_seconds = 1\n" });
    await launch(stack, "write late.txt x");
    const record = await ended(stack, "demo-1");
    expect(record.note).toBe("[echo via demo-1 depth 1] write: denied, nobody answered within 1 s");
    expect(existsSync(join(stack.workspace, "late.txt"))).toBe(false);
    const history = JSON.parse(orchCli(stack, ["history", "--json"]).stdout).entries as Record<string, unknown>[];
    expect(history.map((e) => [e.decision, e.by])).toEqual([["deny", "wait-bound"]]);
  });

  it("a cancelled job's questions are withdrawn: the inbox empties and a late answer says why", async () => {
    const stack = await startStack();
    await launch(stack, "write gone.txt x");
    const [question] = await waitingFor(stack, 1);
    expect(orchCli(stack, ["cancel", "demo-1", "--yes"]).code).toBe(0);
    await waitingFor(stack, 0);
    expect(orchCli(stack, ["approve", question?.id as string]).stderr).toMatch(/no longer waiting: withdrawn: its job ended/);
    expect(existsSync(join(stack.workspace, "gone.txt"))).toBe(false);
  });

  it("runs the [notify] command with the event on stdin when a job starts waiting and when it ends", async () => {
    const out = join(tempDir("notify"), "events");
    const script = join(tempDir("notify-bin"), "notify");
    writeFileSync(script, `#!/bin/sh\ncat >> '${out}'\n`, { mode: 0o755 });
    const stack = await startStack({ config: `[notify]\ncommand = ["${script}"]\n` });
    await launch(stack, "write n.txt x");
    const [question] = await waitingFor(stack, 1);
    expect(orchCli(stack, ["approve", question?.id as string]).code).toBe(0);
    await ended(stack, "demo-1");
    await expect.poll(() => (existsSync(out) ? readFileSync(out, "utf8").trim().split("\n").length : 0), { timeout: 10_000 }).toBe(2);
    const events = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events[0]).toEqual({
      event: "awaiting-approval",
      job: question?.job,
      label: "demo-1",
      state: "awaiting-approval",
      waitingFor: "[echo via demo-1 depth 1] write",
      waiting: 1,
    });
    expect(events[1]).toMatchObject({ event: "ended", label: "demo-1", state: "done", waiting: 0 });
  });

  it("a failing or hanging notify command is logged and never holds a job up", async () => {
    const stack = await startStack({ config: `[notify]\ncommand = ["/nonexistent/notify"]\n` });
    await launch(stack, "write f.txt x");
    const [question] = await waitingFor(stack, 1);
    expect(orchCli(stack, ["approve", question?.id as string]).code).toBe(0);
    expect((await ended(stack, "demo-1")).state).toBe("done");
    await expect
      .poll(() => readFileSync(join(stack.home, "logs", "orch.log"), "utf8"))
      .toMatch(/the notify command (failed|could not be started)/);
  });

  it("from inside a pane, even with its environment cleared, inbox, approve and deny are refused (exit 3): no agent answers a question", async () => {
    const stack = await startStack();
    await launch(stack, "write self.txt x");
    const [question] = await waitingFor(stack, 1);
    const mux = { env: stack.mux.env, bin: stack.mux.bin };
    expect(cli(mux, ["new", "-d", "-n", "agent", "--", "bash", "--norc", "--noprofile"]).code).toBe(0);
    const orch = `${process.execPath} ${stack.orch.bin}`;
    const attempts = [`inbox --json`, `approve ${question?.id}`, `deny ${question?.id}`];
    for (const [i, args] of attempts.entries()) {
      for (const prefix of ["", `env -i VENOM_HOME=${stack.home} `]) {
        cli(mux, ["send", "-t", "agent", `clear; ${prefix}${orch} ${args}; echo "code${i}=$?"`, "Enter"]);
        await expect
          .poll(() => cli(mux, ["capture", "-t", "agent", "-J"]).stdout, { timeout: 20_000 })
          .toMatch(new RegExp(`^code${i}=\\d+`, "m"));
        const screen = cli(mux, ["capture", "-t", "agent", "-J"]).stdout;
        expect(screen, screen).toMatch(new RegExp(`^code${i}=3$`, "m"));
        expect(screen).toMatch(/owner.context/);
      }
    }
    // The question still waits, for the person.
    expect(inbox(stack).map((q) => q.id)).toEqual([question?.id]);
    expect(existsSync(join(stack.workspace, "self.txt"))).toBe(false);
  });
});
