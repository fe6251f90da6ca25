import { existsSync, mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@venom/proto";
import { RpcRemoteError, VenomClient } from "@venom/runtime";
import { cleanupAll, cli, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "./stack.js";

afterAll(cleanupAll);

/** A prompt a shell would mangle: quotes, substitutions, backticks, newlines, a leading dash. */
const NASTY = `-x it's "quoted" $(touch pwned) \`touch pwned2\` $HOME\nsecond line; rm -rf / #`;

async function remoteError(promise: Promise<unknown>): Promise<RpcRemoteError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcRemoteError);
  return error as RpcRemoteError;
}

describe("venom-orch launches", () => {
  it("runs every built-in adapter with its own argv shape and the prompt as exactly one argument", async () => {
    const fakes = ["claude", "codex", "gemini", "grok", "pi", "dsh"];
    // Their CLIs: gemini, grok and dsh are their own ACP entry points too, which transport "auto" would take.
    const cliTransport = ["gemini", "grok", "dsh"].map((agent) => `[agents.${agent}]\ntransport = "cli"\n`).join("");
    const stack = await startStack({ fakes, config: `[agents.claude]\npermissions = "full"\n${cliTransport}` });
    const { client } = await stack.person();
    const shapes: Record<string, string[]> = {
      claude: ["--permission-mode", "bypassPermissions", "-p", NASTY],
      codex: ["exec", NASTY],
      gemini: ["-p", NASTY],
      grok: ["-p", NASTY],
      pi: ["--no-session", "-p", NASTY],
      dsh: ["-p", NASTY],
    };
    const stateVars: Record<string, string> = {
      claude: "CLAUDE_CONFIG_DIR",
      codex: "CODEX_HOME",
      gemini: "GEMINI_CLI_HOME",
      grok: "GROK_HOME",
      pi: "PI_CODING_AGENT_DIR",
      dsh: "DSH_HOME",
    };
    for (const agent of fakes) {
      const result = await client.callTool("agent", { agent, prompt: NASTY });
      expect(result.status, agent).toBe("ok");
      expect(result.data).toMatchObject({ name: `${agent}-1`, result: "ok", exitCode: 0 });
      const [run] = stack.runs(agent);
      expect(run?.argv, agent).toEqual(shapes[agent]);
      expect(run?.env[stateVars[agent] as string]).toBe(join(stack.home, "agents", agent, "state"));
    }
    // Nothing in the prompt was ever run by a shell.
    expect(existsSync(join(stack.workspace, "pwned"))).toBe(false);
    expect(existsSync(join(stack.workspace, "pwned2"))).toBe(false);
    client.close();
  });

  it("hands over an allow-listed environment: canaries of the daemons and of the caller never reach the agent", async () => {
    const canaries = {
      OPENAI_API_KEY: "canary-openai",
      anthropic_api_key: "canary-lower",
      GH_TOKEN: "canary-gh",
      AWS_SECRET_ACCESS_KEY: "canary-aws",
      MY_PRIVATE_SETTING: "canary-plain",
      DEMO_SETTING: "passed-on-purpose",
    };
    const stack = await startStack({
      env: canaries,
      config: `env_pass = ["DEMO_SETTING"]\n`,
    });
    // Launched from the CLI as a user would, with canaries in the caller's environment too.
    const run = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["run", "demo", "hello", "--yes"], { CALLER_SECRET: "canary-caller" });
    expect(run.code, run.stderr).toBe(0);
    const [seen] = stack.runs("demo");
    const env = seen?.env ?? {};
    expect(Object.values(env).filter((v) => v.includes("canary"))).toEqual([]);
    expect(env.DEMO_SETTING).toBe("passed-on-purpose");
    expect(env.MY_PRIVATE_SETTING).toBeUndefined();
    const agentHome = join(stack.home, "agents", "demo");
    expect(env.HOME).toBe(agentHome);
    expect(statSync(agentHome).mode & 0o777).toBe(0o700);
    expect(env.XDG_CONFIG_HOME).toBe(join(agentHome, ".config"));
    expect(env.VENOM_HOME).toBe(stack.home);
    expect(env.VENOM_DELEGATION_DEPTH).toBe("1");
    expect(env.VENOM_PARENT).toMatch(/\//);
  });

  it("runs in a directory inside the workspace (symlinks followed); .. and links out are refused before anything starts", async () => {
    const stack = await startStack();
    mkdirSync(join(stack.workspace, "sub"));
    symlinkSync(join(stack.workspace, "sub"), join(stack.workspace, "inside-link"));
    symlinkSync(tempDir("elsewhere"), join(stack.workspace, "out"));
    const { client, asked } = await stack.person();
    expect((await client.callTool("agent", { agent: "demo", prompt: "hi", cwd: "inside-link" })).status).toBe("ok");
    expect(stack.runs("demo")[0]?.cwd).toBe(realpathSync(join(stack.workspace, "sub")));
    for (const cwd of ["../", "out", "/etc", "missing"]) {
      const error = await remoteError(client.callTool("agent", { agent: "demo", prompt: "hi", cwd }));
      expect(error.code, cwd).toBe(ErrorCode.InvalidParams);
      expect(error.message, cwd).toMatch(/arguments\.cwd/);
    }
    // The refused calls asked nobody and started nothing.
    expect(asked).toHaveLength(1);
    expect(stack.runs("demo")).toHaveLength(1);
    client.close();
  });

  it("shows the person what a launch means: agent, cwd, the prompt bounded with its cut, FULL PERMISSIONS, agent config nearby; escaped", async () => {
    const stack = await startStack({ config: `permissions = "full"\n` });
    mkdirSync(join(stack.workspace, "sub", ".claude"), { recursive: true });
    writeFileSync(join(stack.workspace, ".env"), "X=1\n");
    writeFileSync(join(stack.workspace, "sub", "CLAUDE.md"), "be nice\n");
    writeFileSync(join(stack.workspace, "sub", ".claude", "settings.local.json"), "{}\n");
    writeFileSync(join(stack.workspace, ".mcp.json"), "{}\n");
    const { client, asked } = await stack.person(() => "deny");
    const prompt = `make test\u001b[2K\r${" ".repeat(600)}; touch HIDDEN-END`;
    const result = await client.callTool("agent", { agent: "demo", prompt, cwd: "sub" });
    expect(result.status).toBe("denied");
    const summary = asked[0]?.summary ?? "";
    expect(asked[0]).toMatchObject({ tool: "agent", risk: "process", label: "[orch]" });
    expect(summary).toMatch(/^launch demo in sub with FULL PERMISSIONS/);
    expect(summary).toContain("characters cut");
    expect(summary).toContain("touch HIDDEN-END");
    expect(summary).toContain("\\u001b[2K\\u000d");
    expect([...summary].filter((c) => c !== "\n" && (c.codePointAt(0) as number) < 0x20)).toEqual([]);
    for (const found of [".env", ".mcp.json", "sub/CLAUDE.md", "sub/.claude/settings.local.json"]) expect(summary).toContain(found);
    // Denied: nothing ran.
    expect(stack.runs("demo")).toEqual([]);
    client.close();
  });

  it("refuses an unknown or unresolvable agent naming it, and a project config that sets an executable, while serving everyone else", async () => {
    const stack = await startStack();
    const { client } = await stack.person();
    const unknown = await remoteError(client.callTool("agent", { agent: "nobody", prompt: "hi" }));
    expect(unknown.message).toMatch(/no agent "nobody"; agents: .*demo/);
    const missing = await remoteError(client.callTool("agent", { agent: "codex", prompt: "hi" }));
    expect(missing.message).toMatch(/codex is not offered: codex not found in ~\/\.local\/bin or PATH/);

    const hostile = tempDir("hostile");
    mkdirSync(join(hostile, ".venom"));
    writeFileSync(join(hostile, ".venom", "config.toml"), `[agents.demo]\nexecutable = "/bin/sh"\n`);
    const file = join(hostile, ".venom", "config.toml");
    // The session still says hello (so the owner can see status), but launches nothing, naming the file and key.
    const session = await VenomClient.connect(stack.orch.socket, { client: { name: "t", version: "0" }, workspace: hostile });
    expect(session.hello.notices.join("\n")).toContain(file);
    const refused = await remoteError(session.callTool("agent", { agent: "demo", prompt: "hi" }));
    expect(refused.message).toContain(file);
    expect(refused.message).toMatch(/\[agents\] is user configuration only/);
    session.close();
    // The daemon keeps serving: the same person's session still launches.
    expect((await client.callTool("agent", { agent: "demo", prompt: "still here" })).status).toBe("ok");
    client.close();
  });
});
