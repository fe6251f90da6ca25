import { join } from "node:path";
import { cleanupAll } from "@venom/testkit";
import { binOf } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CODEX, CODEX_ACP, KEY, type Lane, pointCodexAt, startLane, workspaceFile } from "./lane.js";

afterAll(cleanupAll);

/** The key arrives as its login stored it; its sessions are written in its private CODEX_HOME. */
const KEPT = {
  stateVar: "CODEX_HOME",
  keyHeader: ["authorization", `Bearer ${KEY}`] as [string, string],
  files: ["auth.json", "sessions"],
};

const command = (cmd: string) => ({ tool: "exec_command", input: { cmd } });
/** A command Codex runs only when asked: the model requests it outside Codex's own sandbox. */
const escalated = (cmd: string) => ({
  tool: "exec_command",
  input: { cmd, sandbox_permissions: "require_escalated", justification: "write hello.txt outside the sandbox" },
});

describe("Codex through venom-orch, against a scripted model endpoint", () => {
  let lane: Lane | undefined;
  afterEach(async () => lane?.close());

  it("the CLI with permissions = full: signed in by its own login --with-api-key, runs a command that writes in the workspace, privately", async () => {
    lane = await startLane({ codex: join(binOf(CODEX), "codex") }, `[agents.codex]\ntransport = "cli"\npermissions = "full"\n`);
    pointCodexAt(lane);
    lane.provider.script(command("printf 'written by codex\\n' > hello.txt; env > agent-env.txt"), { text: "wrote hello.txt" });
    const screen = await lane.run("codex", "write hello.txt", { answers: ["y"] });
    expect(screen).toMatch(/RUN-EXIT=0/);
    expect(workspaceFile(lane, "hello.txt")).toBe("written by codex\n");
    lane.expectKeptPrivate("codex", KEPT);
  });

  describe("over ACP (codex-acp)", () => {
    const acp = { codex: join(binOf(CODEX), "codex"), "codex-acp": join(binOf(CODEX_ACP), "codex-acp") };

    it("approved: the command runs and writes the file", async () => {
      lane = await startLane(acp, "");
      pointCodexAt(lane);
      lane.provider.script(escalated("printf 'written by codex\\n' > hello.txt; env > agent-env.txt"), { text: "done" });
      const screen = await lane.run("codex", "write hello.txt", { answers: ["y", "y"] });
      expect(screen).toMatch(/RUN-EXIT=0/);
      expect(screen).toMatch(
        /approval needed \[codex-1 acp\] acp execute \(process\)\s+execute: printf 'written by codex\\n' > hello\.txt/,
      );
      expect(workspaceFile(lane, "hello.txt")).toBe("written by codex\n");
      lane.expectKeptPrivate("codex", KEPT);
    });

    it("denied: the command never runs", async () => {
      lane = await startLane(acp, "");
      pointCodexAt(lane);
      lane.provider.script(escalated("printf 'written by codex\\n' > hello.txt"), { text: "done" });
      const screen = await lane.run("codex", "write hello.txt", { answers: ["y", "n"] });
      expect(screen).toMatch(/RUN-EXIT=\d/);
      expect(screen).toMatch(/acp execute \(process\)/);
      expect(workspaceFile(lane, "hello.txt")).toBe("");
    });
  });
});
