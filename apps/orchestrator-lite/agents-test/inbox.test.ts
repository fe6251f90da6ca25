import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, tempDir } from "@venom/testkit";
import { binOf } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLAUDE, CLAUDE_ACP, CLAUDE_ENV, CODEX, CODEX_ACP, KEY, type Lane, pointCodexAt, startLane, workspaceFile } from "./lane.js";

afterAll(cleanupAll);

interface Question {
  id: string;
  name: string;
  label: string;
  tool: string;
  summary: string;
}

describe("the inbox with real agents (docs/venom-orch.md, The inbox)", () => {
  let lane: Lane | undefined;
  afterEach(async () => lane?.close());

  it("Claude Code and Codex over ACP in the background: you are notified, approve Claude's write and deny Codex's command in the inbox, and the history says who answered", async () => {
    const notified = join(tempDir("notify"), "events");
    const config = `[notify]\ncommand = ["sh", "-c", "cat >> ${notified}"]\n[agents.claude.env]\n${CLAUDE_ENV}`;
    lane = await startLane(
      {
        claude: join(binOf(CLAUDE), "claude"),
        "claude-agent-acp": join(binOf(CLAUDE_ACP), "claude-agent-acp"),
        codex: join(binOf(CODEX), "codex"),
        "codex-acp": join(binOf(CODEX_ACP), "codex-acp"),
      },
      config,
    );
    lane.provider.script(
      { tool: "Write", input: { file_path: join(lane.stack.workspace, "by-claude.txt"), content: "written by claude\n" } },
      { text: "done" },
    );
    expect(lane.orch(["agents", "login", "claude", "--api-key"], `${KEY}\n`).code).toBe(0);
    const codexModel = await lane.anotherProvider();
    codexModel.script(
      {
        tool: "exec_command",
        input: {
          cmd: "printf 'written by codex\\n' > by-codex.txt",
          sandbox_permissions: "require_escalated",
          justification: "write by-codex.txt",
        },
      },
      { text: "done" },
    );
    pointCodexAt(lane, codexModel.url);

    // You approve each launch on your terminal and walk away: what the agents ask then waits in the inbox.
    for (const agent of ["claude", "codex"]) {
      expect(await lane.run(agent, `write by-${agent}.txt`, { flags: ["--background"], answers: ["y"] })).toMatch(/RUN-EXIT=0/);
    }
    const waiting = () => JSON.parse(lane?.orch(["inbox", "--json"]).stdout ?? "{}").questions as Question[];
    await expect
      .poll(
        () =>
          waiting()
            .map((q) => q.name)
            .sort(),
        { timeout: 180_000, interval: 500 },
      )
      .toEqual(["claude-1", "codex-1"]);
    const [claude, codex] = ["claude-1", "codex-1"].map((name) => waiting().find((q) => q.name === name) as Question);
    expect(claude?.summary).toContain("by-claude.txt");
    expect(codex?.summary).toContain("by-codex.txt");
    // The notify command heard of each job's first question, in our words: never the agent's output.
    const notices = (event: string) =>
      readFileSync(notified, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .filter((notice) => notice.event === event)
        .map((notice) => notice.label)
        .sort();
    expect(notices("awaiting-approval")).toEqual(["claude-1", "codex-1"]);

    expect(lane.orch(["approve", claude?.id as string]).code).toBe(0);
    expect(lane.orch(["deny", codex?.id as string, "--reason", "not in this repository"]).code).toBe(0);

    // Claude's turn ends done; Codex's, its command denied, ends as codex-acp ends a turn it cannot go on with.
    await expect
      .poll(() => [lane?.jobs()["claude-1"]?.state, lane?.jobs()["codex-1"]?.state], { timeout: 120_000, interval: 500 })
      .toEqual(["done", expect.stringMatching(/^(done|failed|cancelled)$/)]);
    expect(workspaceFile(lane, "by-claude.txt")).toBe("written by claude\n");
    expect(workspaceFile(lane, "by-codex.txt")).toBe("");
    // An answer names one question: the one already answered cannot be answered again.
    const again = lane.orch(["deny", claude?.id as string]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/is no longer waiting: answered in the inbox/);

    const history = JSON.parse(lane.orch(["history", "--json"]).stdout).entries as {
      name: string;
      by: string;
      decision: string;
      tool: string;
    }[];
    expect(history.filter((e) => e.by === "inbox").map((e) => [e.name, e.decision])).toEqual(
      expect.arrayContaining([
        ["claude-1", "approve"],
        ["codex-1", "deny"],
      ]),
    );
    expect(notices("ended")).toEqual(["claude-1", "codex-1"]);
  });
});
