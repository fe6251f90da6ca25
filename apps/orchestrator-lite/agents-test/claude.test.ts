import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll } from "@venom/testkit";
import { binOf } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLAUDE, CLAUDE_ACP, CLAUDE_ENV, KEY, type Lane, startLane, workspaceFile } from "./lane.js";

afterAll(cleanupAll);

/** The key arrives as its apiKeyHelper prints it; its sessions are written in its private CLAUDE_CONFIG_DIR. */
const KEPT = { stateVar: "CLAUDE_CONFIG_DIR", keyHeader: ["x-api-key", KEY] as [string, string], files: [".claude.json", "projects"] };

describe("Claude Code through venom-orch, against a scripted model endpoint", () => {
  let lane: Lane | undefined;
  afterEach(async () => lane?.close());

  it("the CLI with permissions = full: signed in with agents login --api-key, writes a file and runs a command in the workspace, privately", async () => {
    const config = `[agents.claude]\ntransport = "cli"\npermissions = "full"\n[agents.claude.env]\n${CLAUDE_ENV}`;
    lane = await startLane({ claude: join(binOf(CLAUDE), "claude") }, config);
    lane.provider.script(
      { tool: "Write", input: { file_path: join(lane.stack.workspace, "hello.txt"), content: "written by claude\n" } },
      { tool: "Bash", input: { command: "env > agent-env.txt", description: "record the environment" } },
      { text: "wrote hello.txt" },
    );
    expect(lane.orch(["agents", "login", "claude", "--api-key"], `${KEY}\n`).code).toBe(0);
    const screen = await lane.run("claude", "write hello.txt", { flags: ["--yes"] });
    expect(screen).toMatch(/RUN-EXIT=0/);
    expect(workspaceFile(lane, "hello.txt")).toBe("written by claude\n");
    lane.expectKeptPrivate("claude", KEPT);
    expect(readFileSync(join(lane.stack.home, "agents", "claude", "state", "settings.json"), "utf8")).toContain("apiKeyHelper");
  });

  describe("over ACP (claude-agent-acp): its edit is asked on the terminal that ran it", () => {
    const config = `[agents.claude.env]\n${CLAUDE_ENV}`;
    const acp = { claude: join(binOf(CLAUDE), "claude"), "claude-agent-acp": join(binOf(CLAUDE_ACP), "claude-agent-acp") };
    const edit = (lane: Lane) => {
      lane.provider.script(
        { tool: "Write", input: { file_path: join(lane.stack.workspace, "hello.txt"), content: "written by claude\n" } },
        { text: "done editing" },
      );
      expect(lane.orch(["agents", "login", "claude", "--api-key"], `${KEY}\n`).code).toBe(0);
    };

    it("approved: the agent writes the file and runs a command, each asked naming the agent and what it does", async () => {
      lane = await startLane(acp, config);
      edit(lane);
      lane.provider.script(
        { tool: "Write", input: { file_path: join(lane.stack.workspace, "hello.txt"), content: "written by claude\n" } },
        { tool: "Bash", input: { command: "env > agent-env.txt", description: "record the environment" } },
        { text: "done editing" },
      );
      const screen = await lane.run("claude", "write hello.txt", { answers: ["y", "y", "y"] });
      expect(screen).toMatch(/RUN-EXIT=0/);
      expect(screen).toMatch(/launch claude over ACP/);
      expect(screen).toMatch(/approval needed \[claude-1 acp\] acp edit \(write\)/);
      expect(screen).toContain("hello.txt");
      expect(screen).toMatch(/approval needed \[claude-1 acp\] acp execute \(process\)\s+execute: env > agent-env\.txt/);
      expect(workspaceFile(lane, "hello.txt")).toBe("written by claude\n");
      lane.expectKeptPrivate("claude", KEPT);
    });

    it("denied: the file is never written", async () => {
      lane = await startLane(acp, config);
      edit(lane);
      const screen = await lane.run("claude", "write hello.txt", { answers: ["y", "n"] });
      expect(screen).toMatch(/RUN-EXIT=\d/);
      expect(screen).toMatch(/approval needed \[claude-1 acp\] acp edit \(write\)/);
      // The refusal reached the model as the tool's result.
      expect(lane.provider.requests.some((request) => request.body.includes('"is_error":true'))).toBe(true);
      expect(workspaceFile(lane, "hello.txt")).toBe("");
    });

    it("--yes: nothing is asked, the edit is approved", async () => {
      lane = await startLane(acp, config);
      edit(lane);
      const screen = await lane.run("claude", "write hello.txt", { flags: ["--yes"] });
      expect(screen).toMatch(/RUN-EXIT=0/);
      expect(workspaceFile(lane, "hello.txt")).toBe("written by claude\n");
    });

    it("permissions = full: the agent's own mode that asks nothing; only the launch is asked", async () => {
      lane = await startLane(acp, `[agents.claude]\npermissions = "full"\n${config}`);
      edit(lane);
      const screen = await lane.run("claude", "write hello.txt", { answers: ["y"] });
      expect(screen).toMatch(/RUN-EXIT=0/);
      expect(screen).toMatch(/FULL PERMISSIONS/);
      expect(workspaceFile(lane, "hello.txt")).toBe("written by claude\n");
    });
  });
});
