import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, ORCH_BIN, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_AGENT, startStack } from "./stack.js";

afterAll(cleanupAll);

const KEY = "sk-canary-4f1d0c";

/** A user's home with venom-orch's config and fake agent CLIs in ~/.local/bin. */
function user(config = "") {
  const home = tempDir("home");
  const userHome = tempDir("user");
  const bin = join(userHome, ".local", "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(home, "config.toml"), config);
  const env = { ...process.env, VENOM_HOME: home, HOME: userHome };
  const orch = (args: string[], input?: string) => {
    const result = spawnSync(process.execPath, [ORCH_BIN, ...args], { env, input: input ?? "", encoding: "utf8", timeout: 30_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  /** A fake CLI `name` that records its argv, CODEX_HOME-like state and stdin in `<name>.seen`, and prints a version. */
  const fake = (name: string, stateVar = "CODEX_HOME") => {
    const seen = join(userHome, `${name}.seen`);
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${name}-cli 9.9.9"; exit 0; fi\n{ echo "argv: $*"; echo "state: $${stateVar}"; echo "home: $HOME"; echo "stdin: $(cat)"; } > '${seen}'\nmkdir -p "$${stateVar}" && echo '{}' > "$${stateVar}/auth.json"\n`,
    );
    chmodSync(join(bin, name), 0o755);
    return seen;
  };
  return { home, userHome, bin, env, orch, fake, state: (agent: string) => join(home, "agents", agent, "state") };
}

/** Every file under `dir` that holds `text`. */
function filesHolding(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).includes(text)) found.push(path);
  }
  return found;
}

describe("agents login NAME --api-key", () => {
  it("claude: the key is stored 0600 in CLAUDE_CONFIG_DIR and an apiKeyHelper that prints it is merged into its settings; logout removes both", () => {
    const u = user();
    const state = u.state("claude");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeFileSync(join(state, "settings.json"), '{"theme":"dark"}');
    const login = u.orch(["agents", "login", "claude", "--api-key"], `${KEY}\nnot read\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(KEY);
    const settings = JSON.parse(readFileSync(join(state, "settings.json"), "utf8"));
    expect(settings.theme).toBe("dark");
    // What Claude Code runs to get its key prints exactly the key.
    expect(spawnSync("/bin/sh", ["-c", settings.apiKeyHelper], { encoding: "utf8" }).stdout).toBe(`${KEY}\n`);
    expect(statSync(join(state, "venom-api-key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, "settings.json")).mode & 0o777).toBe(0o600);
    // Only its key file holds the key: no log, no memo, no other file of the home.
    expect(filesHolding(u.home, KEY)).toEqual([join(state, "venom-api-key")]);
    expect(u.orch(["agents", "logout", "claude"]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(state, "settings.json"), "utf8"))).toEqual({ theme: "dark" });
    expect(existsSync(join(state, "venom-api-key"))).toBe(false);
    expect(filesHolding(u.home, KEY)).toEqual([]);
  });

  it("codex: its own login --with-api-key gets the key on stdin, never in argv, under the private CODEX_HOME", () => {
    const u = user();
    const seen = u.fake("codex");
    const login = u.orch(["agents", "login", "codex", "--api-key"], `${KEY}\n`);
    expect(login.code, login.stderr).toBe(0);
    const said = readFileSync(seen, "utf8");
    expect(said).toContain("argv: login --with-api-key\n");
    expect(said).toContain(`state: ${u.state("codex")}\n`);
    expect(said).toContain(`home: ${join(u.home, "agents", "codex")}\n`);
    expect(said).toContain(`stdin: ${KEY}\n`);
    expect(u.orch(["agents", "doctor", "codex"]).stdout).toMatch(/^ {2}signed in$/m);
    expect(u.orch(["agents", "logout", "codex"]).code).toBe(0);
    expect(existsSync(join(u.state("codex"), "auth.json"))).toBe(false);
  });

  it("gemini, pi and dsh get the key where each documents it; grok, which documents no key file, is refused and pointed at its own sign-in", () => {
    const u = user();
    expect(u.orch(["agents", "login", "gemini", "--api-key"], `${KEY}\n`).code).toBe(0);
    expect(readFileSync(join(u.state("gemini"), ".gemini", ".env"), "utf8")).toBe(`GEMINI_API_KEY=${KEY}\n`);
    expect(u.orch(["agents", "login", "pi", "--api-key", "--provider", "openai"], `${KEY}\n`).code).toBe(0);
    expect(JSON.parse(readFileSync(join(u.state("pi"), "auth.json"), "utf8"))).toEqual({ openai: { type: "api_key", key: KEY } });
    expect(statSync(join(u.state("pi"), "auth.json")).mode & 0o777).toBe(0o600);
    expect(u.orch(["agents", "login", "dsh", "--api-key"], `${KEY}\n`).code).toBe(0);
    expect(readFileSync(join(u.state("dsh"), "api-key"), "utf8")).toBe(`${KEY}\n`);
    const grok = u.orch(["agents", "login", "grok", "--api-key"], `${KEY}\n`);
    expect(grok.code).toBe(1);
    expect(grok.stderr).toMatch(/grok documents no key file Venom can wire: `venom-orch agents login grok` runs its own sign-in/);
    // An empty line stores nothing.
    const empty = u.orch(["agents", "login", "claude", "--api-key"], "\n");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no key was given; nothing was stored/);
    // Signing in and out is the owner's: refused under a delegation.
    const delegated = spawnSync(process.execPath, [ORCH_BIN, "agents", "logout", "pi"], {
      env: { ...u.env, VENOM_DELEGATION_DEPTH: "1" },
      encoding: "utf8",
    });
    expect(delegated.status).toBe(3);
    expect(existsSync(join(u.state("pi"), "auth.json"))).toBe(true);
  });
});

describe("[agents.NAME.env] and env_pass", () => {
  it("a value written for one agent reaches that agent only, an endpoint variable included", async () => {
    const stack = await startStack({
      config: `[agents.demo.env]\nANTHROPIC_BASE_URL = "http://127.0.0.1:9/v1"\nHTTPS_PROXY = "http://proxy.local:3128"\n[agents.other]\nexecutable = "${DEMO_AGENT}"\n`,
    });
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    expect(cli(orch, ["run", "demo", "hi", "--yes"]).code).toBe(0);
    expect(stack.runs("demo")[0]?.env).toMatchObject({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9/v1",
      HTTPS_PROXY: "http://proxy.local:3128",
    });
    expect(cli(orch, ["run", "other", "hi", "--yes"]).code).toBe(0);
    expect(Object.keys(stack.runs("other")[0]?.env ?? {})).not.toContain("ANTHROPIC_BASE_URL");
    expect(Object.keys(stack.runs("other")[0]?.env ?? {})).not.toContain("HTTPS_PROXY");
    const doctor = cli(orch, ["agents", "doctor", "demo"]).stdout;
    expect(doctor).toContain("[agents.demo.env] sets ANTHROPIC_BASE_URL, HTTPS_PROXY");
    expect(doctor).not.toContain("proxy.local");
  });

  it.each([
    ["ANTHROPIC_API_KEY", /ANTHROPIC_API_KEY looks like a credential.*venom-orch agents login NAME --api-key/],
    ["GITHUB_TOKEN", /GITHUB_TOKEN looks like a credential/],
    ["DB_PASSWORD", /DB_PASSWORD looks like a credential/],
    ["LD_PRELOAD", /LD_PRELOAD is a loader or start-up variable/],
    ["XDG_CACHE_HOME", /XDG_CACHE_HOME is set by Venom for every agent/],
    ["CLAUDE_CONFIG_DIR", /CLAUDE_CONFIG_DIR is set by Venom: it points inside claude's private home/],
  ])("[agents.claude.env] %s is an error naming the key", (name, message) => {
    const u = user(`[agents.claude.env]\n${name} = "x"\n`);
    const list = u.orch(["agents", "list"]);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/config\.toml: key agents\.claude\.env\./);
    expect(list.stderr).toMatch(message);
    expect(list.stderr).not.toContain('"x"');
  });

  it("a name in env_pass that the allow-list always drops is an error naming it, never a silent drop", () => {
    const u = user('[agents.claude]\nenv_pass = ["HTTPS_PROXY", "ANTHROPIC_BASE_URL"]\n');
    const list = u.orch(["agents", "list"]);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/key agents\.claude\.env_pass\.1: ANTHROPIC_BASE_URL is never passed to an agent.*\[agents\.claude\.env\]/);
  });
});

describe("agents list and doctor", () => {
  it("say per agent its version, transport, ACP entry point (and the package that installs it), whether it is signed in and whether it can ask you", () => {
    const u = user();
    u.fake("codex");
    const cliOnly = u.orch(["agents", "doctor", "codex"]).stdout;
    expect(cliOnly).toContain(`codex: ${join(u.bin, "codex")} (codex-cli 9.9.9)`);
    expect(cliOnly).toContain("transport: cli; ACP entry point: codex-acp not installed (npm install -g @zed-industries/codex-acp)");
    expect(cliOnly).toMatch(/^ {2}not signed in \(venom-orch agents login codex\)$/m);
    expect(cliOnly).toMatch(/cannot ask you: a CLI agent refuses edits and commands by its own policy/);
    // With the ACP entry point installed, transport "auto" (the built-ins' default) takes it, and it can ask.
    u.fake("codex-acp");
    const acp = u.orch(["agents", "doctor", "codex"]).stdout;
    expect(acp).toContain(`transport: acp; ACP entry point: installed (${join(u.bin, "codex-acp")})`);
    expect(acp).toMatch(/asks you: its permission requests come to you \(ACP\)/);
    const list = u.orch(["agents", "list"]).stdout;
    expect(list).toMatch(new RegExp(`^codex +offered: ${join(u.bin, "codex-acp")} \\(ACP\\)\\n +not signed in; asks you`, "m"));
    expect(JSON.parse(u.orch(["agents", "list", "--json"]).stdout).agents).toContainEqual(
      expect.objectContaining({ agent: "codex", transport: "acp", signedIn: false }),
    );
    // pi has no approvals of its own: it asks nobody, over ACP or not (its ACP adapter relays only its extensions').
    u.fake("pi");
    expect(u.orch(["agents", "doctor", "pi"]).stdout).toMatch(/asks nothing: pi has no approvals of its own and runs every tool/);
    u.fake("pi-acp");
    expect(u.orch(["agents", "doctor", "pi"]).stdout).toMatch(/asks nothing of its tools: pi has no approvals of its own \(over ACP/);
  });

  it("the launch summary says a CLI agent with default permissions cannot ask you", async () => {
    const stack = await startStack({ fakes: ["codex"] });
    const { client, asked } = await stack.person();
    try {
      await client.callTool("agent", { agent: "codex", prompt: "hi" });
      expect(asked[0]?.summary).toMatch(/^it cannot ask you: a CLI agent refuses edits and commands by its own policy/m);
    } finally {
      client.close();
    }
  });
});
