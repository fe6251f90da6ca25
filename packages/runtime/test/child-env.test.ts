import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseMarkers } from "@venom/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DelegationDepthError, delegatedEnv } from "../src/child-env.js";
import { VenomHome } from "../src/home.js";

let tempDir: string;
let home: VenomHome;

beforeEach(() => {
  tempDir = mkdtempSync(join(tmpdir(), "venom-child-env-"));
  // Not created yet: delegatedEnv must create what it needs, and nothing when it refuses.
  home = new VenomHome(join(tempDir, "home"));
});
afterEach(() => rmSync(tempDir, { recursive: true, force: true }));

const USER_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  LANG: "C.UTF-8",
  HOME: "/home/someone",
  XDG_CONFIG_HOME: "/home/someone/.config",
  VENOM_HOME: "/home/someone/.venom",
  VENOM_SOCKET: "/home/someone/.venom/state/echo.sock",
  VENOM_PARENT: "spoofed/parent",
  VENOM_DELEGATION_DEPTH: "0",
  OPENAI_API_KEY: "canary-openai",
  Anthropic_Api_Key: "canary-mixed-case",
  CLAUDE_CODE_OAUTH_TOKEN: "canary-oauth",
  OPENAI_BASE_URL: "https://example.invalid",
  CODEX_HOME: "/home/someone/.codex",
  GROK_TOKEN: "canary-grok",
  GROK_ENDPOINT: "https://grok.invalid",
  GROKKER: "not a GROK_ variable",
  UNSET: undefined,
};

const DECLARED = ["CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_BASE_URL", "GROK_*"];

/** The environment a real child process sees, as `env` prints it. */
function childEnv(env: Record<string, string>): Map<string, string> {
  const lines = execFileSync("env", [], { env, encoding: "utf8" }).trim().split("\n");
  return new Map(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("delegatedEnv", () => {
  it("is an allow-list: an unlisted variable of the launcher does not reach the child", () => {
    const env = delegatedEnv({
      base: { ...USER_ENV, SOME_RANDOM_SETTING: "x", LC_ALL: "C" },
      home,
      agent: "claude",
      declaredVars: [],
      parent: "orch-1/d1",
      parentDepth: 0,
      maxDepth: 2,
    });
    expect(env.SOME_RANDOM_SETTING).toBeUndefined();
    expect(env.LC_ALL).toBe("C");
  });

  it("passes only the base set and asked-for names, never a secret-shaped or declared one, to a real child", () => {
    const base = { ...USER_ENV };
    const env = delegatedEnv({
      base,
      // Asking for secrets by name does not pass them: only GROKKER is harmless.
      pass: ["GROKKER", "OPENAI_API_KEY", "GROK_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "VENOM_SOCKET", "CODEX_HOME"],
      extra: { EXTRA_OK: "1", AWS_SECRET_ACCESS_KEY: "canary-aws", Gh_Token: "canary-gh" },
      home,
      agent: "codex",
      stateVar: "CODEX_HOME",
      declaredVars: DECLARED,
      parent: "orch-1/d42",
      parentDepth: 0,
      maxDepth: 2,
    });
    const seen = childEnv(env);

    for (const name of seen.keys()) {
      expect(name.toUpperCase().endsWith("_API_KEY")).toBe(false);
      expect(name.startsWith("GROK_")).toBe(false);
    }
    for (const name of ["CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_BASE_URL", "VENOM_SOCKET", "AWS_SECRET_ACCESS_KEY", "Gh_Token"])
      expect(seen.has(name)).toBe(false);
    expect([...seen.values()].some((value) => value.startsWith("canary-") || value.includes("someone"))).toBe(false);
    expect(seen.get("PATH")).toBe(process.env.PATH);
    expect(seen.get("LANG")).toBe("C.UTF-8");
    expect(seen.get("GROKKER")).toBe("not a GROK_ variable");
    expect(seen.get("EXTRA_OK")).toBe("1");
    // The child reaches this instance's daemons (as a delegate), never the user's own home's.
    expect(seen.get("VENOM_HOME")).toBe(home.root);
    expect(seen.has("UNSET")).toBe(false);
    // The caller's object is left as it was.
    expect(base).toEqual(USER_ENV);
  });

  it("refuses a declared name or prefix whatever its case, as it refuses a secret-shaped one", () => {
    const env = delegatedEnv({
      base: { ...USER_ENV, MYAGENT_ENDPOINT: "canary-endpoint", Myagent_Endpoint: "canary-mixed" },
      pass: ["MYAGENT_ENDPOINT", "Myagent_Endpoint"],
      extra: { myagent_endpoint: "canary-lower", Myagent_Region: "canary-prefix", MYAGENTISH: "kept" },
      home,
      agent: "myagent",
      declaredVars: ["MYAGENT_ENDPOINT", "MYAGENT_*"],
      parent: "orch-1/d43",
      parentDepth: 0,
      maxDepth: 2,
    });
    const seen = childEnv(env);
    expect([...seen.values()].filter((value) => value.startsWith("canary-"))).toEqual([]);
    expect(seen.get("MYAGENTISH")).toBe("kept");
  });

  it("gives the agent a private HOME, XDG directories and state directory under agents/<name>", () => {
    const env = delegatedEnv({
      base: USER_ENV,
      home,
      agent: "codex",
      stateVar: "CODEX_HOME",
      declaredVars: DECLARED,
      parent: "orch-1/d42",
      parentDepth: 0,
      maxDepth: 2,
    });
    const seen = childEnv(env);
    const agentHome = join(home.agents, "codex");

    expect(seen.get("HOME")).toBe(agentHome);
    expect(seen.get("XDG_CONFIG_HOME")).toBe(join(agentHome, ".config"));
    expect(seen.get("XDG_DATA_HOME")).toBe(join(agentHome, ".local/share"));
    expect(seen.get("XDG_STATE_HOME")).toBe(join(agentHome, ".local/state"));
    expect(seen.get("XDG_CACHE_HOME")).toBe(join(agentHome, ".cache"));
    expect(seen.get("CODEX_HOME")).toBe(join(agentHome, "state"));
    for (const dir of [
      home.root,
      home.agents,
      agentHome,
      ...["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "CODEX_HOME"].map((name) => seen.get(name) as string),
    ]) {
      expect(mode(dir)).toBe(0o700);
    }
  });

  it("never follows a symlink the agent planted in its home: nothing is created or chmodded where it leads, and the launch is refused naming it", () => {
    const outside = join(tempDir, "outside");
    mkdirSync(join(outside, "share"), { recursive: true, mode: 0o755 });
    chmodSync(join(outside, "share"), 0o755);
    const options = { base: USER_ENV, home, agent: "codex", declaredVars: DECLARED, parent: "orch-1/d42", parentDepth: 0, maxDepth: 2 };
    delegatedEnv(options);
    // What the agent can do in the home it writes: replace .local with a link to a directory of yours.
    const local = join(home.agents, "codex", ".local");
    rmSync(local, { recursive: true });
    symlinkSync(outside, local);
    expect(() => delegatedEnv(options)).toThrow(`${local}: refused: it is a symlink or not a directory`);
    expect(existsSync(join(outside, "state"))).toBe(false);
    expect(mode(join(outside, "share"))).toBe(0o755);
  });

  it("sets the markers one level deeper than the parent, replacing inherited ones", () => {
    const first = delegatedEnv({
      base: USER_ENV,
      home,
      agent: "claude",
      declaredVars: DECLARED,
      parent: "orch-1/d1",
      parentDepth: 0,
      maxDepth: 3,
    });
    const firstSeen = childEnv(first);
    expect(firstSeen.get("VENOM_PARENT")).toBe("orch-1/d1");
    expect(firstSeen.get("VENOM_DELEGATION_DEPTH")).toBe("1");

    // A nested delegation starts from the child's environment and its parsed depth.
    const nested = delegatedEnv({
      base: first,
      home,
      agent: "claude",
      declaredVars: DECLARED,
      parent: "orch-2/d7",
      parentDepth: parseMarkers(first).depth,
      maxDepth: 3,
    });
    expect(parseMarkers(Object.fromEntries(childEnv(nested)))).toEqual({ depth: 2, parent: "orch-2/d7" });
  });

  it("refuses a delegation over the depth limit before creating anything", () => {
    const attempt = () =>
      delegatedEnv({ base: USER_ENV, home, agent: "claude", declaredVars: DECLARED, parent: "orch-1/d1", parentDepth: 2, maxDepth: 2 });
    expect(attempt).toThrow(DelegationDepthError);
    expect(attempt).toThrow(/depth 3.*limit of 2/);
    expect(existsSync(home.root)).toBe(false);
  });

  it("refuses bad agent names, variable patterns and parents before creating anything", () => {
    const options = { base: USER_ENV, home, declaredVars: DECLARED, parent: "orch-1/d1", parentDepth: 0, maxDepth: 2 };
    for (const agent of ["", "../x", "Claude", "1st", "a/b", `a${"b".repeat(32)}`]) {
      expect(() => delegatedEnv({ ...options, agent })).toThrow(TypeError);
    }
    expect(() => delegatedEnv({ ...options, agent: "claude", declaredVars: ["*"] })).toThrow(TypeError);
    expect(() => delegatedEnv({ ...options, agent: "claude", stateVar: "CODEX_*" })).toThrow(TypeError);
    expect(() => delegatedEnv({ ...options, agent: "claude", parent: "" })).toThrow(TypeError);
    expect(() => delegatedEnv({ ...options, agent: "claude", parent: "a\nb" })).toThrow(TypeError);
    expect(existsSync(home.root)).toBe(false);
  });
});
