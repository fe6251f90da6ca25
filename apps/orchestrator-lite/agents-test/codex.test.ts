import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll } from "@venom/testkit";
import { binOf } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { KEY, type Lane, startLane, workspaceFile } from "./lane.js";

afterAll(cleanupAll);

/** Pinned: what this lane proves is these versions. */
const CODEX = "@openai/codex@0.171.0";
const CODEX_ACP = "@zed-industries/codex-acp@0.16.0";

/**
 * Codex reads no endpoint variable: its own configuration in the private CODEX_HOME names the endpoint, as
 * docs/venom-orch.md ("Using real agents") tells a user to write it; the key is the one its own login stored.
 */
function pointAtProvider(lane: Lane): void {
  const state = join(lane.stack.home, "agents", "codex", "state");
  mkdirSync(state, { recursive: true });
  writeFileSync(
    join(state, "config.toml"),
    `model = "gpt-5.1-codex"\nmodel_provider = "endpoint"\n\n[model_providers.endpoint]\nname = "endpoint"\nbase_url = "${lane.provider.url}/v1"\nwire_api = "responses"\nrequires_openai_auth = true\n`,
  );
  expect(lane.orch(["agents", "login", "codex", "--api-key"], `${KEY}\n`).code).toBe(0);
}

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
    pointAtProvider(lane);
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
      pointAtProvider(lane);
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
      pointAtProvider(lane);
      lane.provider.script(escalated("printf 'written by codex\\n' > hello.txt"), { text: "done" });
      const screen = await lane.run("codex", "write hello.txt", { answers: ["y", "n"] });
      expect(screen).toMatch(/RUN-EXIT=\d/);
      expect(screen).toMatch(/acp execute \(process\)/);
      expect(workspaceFile(lane, "hello.txt")).toBe("");
    });
  });
});
