import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@venom/proto";
import { cleanupAll, connect, startMux, tempDir } from "@venom/testkit";
import { ASK } from "@venom/testkit/escape";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const CANARY = "sk-canary-0123456789";

/** An agent's pane (made by the owner, delegated, as venom-orch makes one) that asks venom-mux for a pane/new with `params`. */
async function agentAsks(mux: Awaited<ReturnType<typeof startMux>>, owner: Awaited<ReturnType<typeof connect>>, params: object) {
  writeFileSync(join(mux.workspace, "ask.cjs"), ASK);
  const ask = `${process.execPath} ask.cjs ${mux.socket} pane/new '${JSON.stringify(params)}'`;
  const agent = await owner.request("pane/new", {
    argv: ["sh", "-c", `${ask}; echo AGENT-DONE; sleep 300`],
    envPolicy: "delegated",
    agent: "helper",
  });
  const screen = async () => (await owner.request("pane/capture", { target: agent.id, join: true })).text;
  await expect.poll(screen, { timeout: 30_000 }).toMatch(/AGENT-DONE/);
  return screen();
}

describe("a delegate's new pane is a delegated pane", () => {
  it("an agent's approved new pane gets neither venom-mux's API keys nor the real HOME, but the agent's private home", async () => {
    const realHome = tempDir("real-home");
    const mux = await startMux({ env: { HOME: realHome, ANTHROPIC_API_KEY: CANARY, DEPLOY_TOKEN: CANARY } });
    const owner = await connect(mux, { gate: async () => "approve" as const });
    try {
      const out = join(mux.workspace, "seen");
      const argv = ["sh", "-c", `env > ${out}; echo "HOME=$HOME" >> ${out}`];
      // Nor an agent vendor's variable it asks for by name, in any case (@venom/agents, AGENT_VAR_PREFIXES).
      const env = { OPENAI_ORGANIZATION: CANARY, Xai_Endpoint: CANARY, deepseek_base_url: CANARY };
      expect(await agentAsks(mux, owner, { name: "build", argv, env })).toMatch(/ANSWER "%\d+"/);
      await expect.poll(() => existsSync(out) && readFileSync(out, "utf8").includes("HOME="), { timeout: 30_000 }).toBe(true);
      const seen = readFileSync(out, "utf8");
      expect(seen).not.toContain(CANARY);
      expect(seen).not.toContain(realHome);
      expect(seen).toMatch(new RegExp(`^HOME=${join(mux.home, "agents", "helper")}$`, "m"));
      const build = (await owner.request("pane/list", {})).panes.find((p) => p.name === "build");
      expect(build?.envPolicy).toBe("delegated");
    } finally {
      owner.close();
      await mux.stop();
    }
  });

  it("an agent cannot take another agent's private home for its pane", async () => {
    const mux = await startMux();
    const owner = await connect(mux, { gate: async () => "approve" as const });
    try {
      const screen = await agentAsks(mux, owner, { name: "steal", argv: ["true"], agent: "other" });
      expect(screen).toMatch(/ANSWER "invalid params: agent: .*helper/);
      expect((await owner.request("pane/list", {})).panes.map((p) => p.name)).not.toContain("steal");
    } finally {
      owner.close();
      await mux.stop();
    }
  });

  it("nobody's new pane may set a start-up variable: BASH_ENV is refused naming it, and the file it names never runs", async () => {
    const mux = await startMux();
    const owner = await connect(mux);
    try {
      const payload = join(mux.workspace, "payload.sh");
      writeFileSync(payload, `touch ${join(mux.workspace, "PWNED")}\n`);
      // Were the pane made, its program is waited for, so whatever BASH_ENV ran has run.
      const refusal = await owner.request("pane/new", { argv: ["bash", "-c", "echo building"], env: { BASH_ENV: payload } }).then(
        (pane) => owner.request("pane/wait", { target: pane.id }),
        (error: unknown) => error,
      );
      expect(existsSync(join(mux.workspace, "PWNED"))).toBe(false);
      expect(refusal).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining("env.BASH_ENV") });
      for (const name of ["LD_PRELOAD", "GIT_SSH_COMMAND", "NODE_OPTIONS", "PYTHONSTARTUP"]) {
        const refused = owner.request("pane/new", { argv: ["true"], env: { [name]: "x" } });
        await expect(refused).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining(`env.${name}`) });
      }
      expect((await owner.request("pane/list", {})).panes).toHaveLength(0);
    } finally {
      owner.close();
      await mux.stop();
    }
  });

  it("the approval question names the environment policy and every variable the caller sets, never a value", async () => {
    const mux = await startMux();
    const asked: string[] = [];
    const owner = await connect(mux, {
      gate: async (request) => {
        asked.push(request.summary);
        return "deny";
      },
    });
    try {
      const params = { name: "x", argv: ["true"], env: { BUILD_MODE: CANARY, CI: "1" } };
      expect(await agentAsks(mux, owner, params)).toMatch(/ANSWER "refused/);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toBe('new pane x, env delegated (agent helper) setting BUILD_MODE, CI: "true"');
      expect(asked[0]).not.toContain(CANARY);
    } finally {
      owner.close();
      await mux.stop();
    }
  });
});
