import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentSandbox, applyProjectConfig, type Config, ConfigError, loadUserConfig } from "../src/config.js";
import { WorkspaceFs } from "../src/workspace-fs.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function setup(user: string, project?: string) {
  const dir = mkdtempSync(join(tmpdir(), "venom-config-"));
  dirs.push(dir);
  writeFileSync(join(dir, "config.toml"), user);
  const workspace = join(dir, "ws");
  mkdirSync(join(workspace, ".venom"), { recursive: true });
  if (project !== undefined) writeFileSync(join(workspace, ".venom", "config.toml"), project);
  return { file: join(dir, "config.toml"), workspace };
}

/** The project config of `workspace` applied as a session applies it: read beneath the directory opened once. */
function applyIn(config: Config, workspace: string): Config {
  const dir = WorkspaceFs.named(workspace);
  try {
    return applyProjectConfig(config, dir);
  } finally {
    dir.close();
  }
}

describe("configuration layers (conformance/spec/design.md, Configuration)", () => {
  it("defaults, then the user's file, then flags", () => {
    const { file } = setup('[tools]\nmax_timeout_seconds = 30\n[approval]\npolicy = "always"\n');
    expect(loadUserConfig(file).tools.max_timeout_seconds).toBe(30);
    expect(loadUserConfig(file).tools.max_output_bytes).toBe(1024 * 1024);
    expect(loadUserConfig(file, { policy: "never" }).approval.policy).toBe("never");
  });

  it("an error names the file, the key and what was expected", () => {
    const { file } = setup('[tools]\nmax_timeout_seconds = "soon"\n');
    expect(() => loadUserConfig(file)).toThrow(ConfigError);
    expect(() => loadUserConfig(file)).toThrow(new RegExp(`${file}: key tools.max_timeout_seconds: .*number`));
    const unknown = setup("[tools]\nmax_timeout = 5\n");
    expect(() => loadUserConfig(unknown.file)).toThrow(/key tools.max_timeout is not allowed/);
    const broken = setup("[tools\n");
    expect(() => loadUserConfig(broken.file)).toThrow(/not valid TOML/);
  });

  it("an agent's env_pass cannot pass a loader or start-up variable: the key and the name are said", () => {
    const { file } = setup('[agents.helper]\nexecutable = "/bin/true"\nenv_pass = ["HTTPS_PROXY", "NODE_OPTIONS"]\n');
    expect(() => loadUserConfig(file)).toThrow(/key agents\.helper\.env_pass\.1: NODE_OPTIONS is a loader or start-up variable/);
  });

  it("project config can lower a ceiling but never raise it", () => {
    const { file, workspace } = setup(
      "[tools]\nmax_timeout_seconds = 60\n",
      "[tools]\nmax_timeout_seconds = 100000\nmax_output_bytes = 10\n",
    );
    const effective = applyIn(loadUserConfig(file), workspace);
    expect(effective.tools.max_timeout_seconds).toBe(60);
    expect(effective.tools.max_output_bytes).toBe(10);
  });

  it("project config can make the policy stricter, never looser", () => {
    const strict = setup('[approval]\npolicy = "always"\n', '[approval]\npolicy = "on-risk"\n');
    expect(applyIn(loadUserConfig(strict.file), strict.workspace).approval.policy).toBe("always");
    const tighter = setup("", '[approval]\npolicy = "never"\n');
    expect(applyIn(loadUserConfig(tighter.file), tighter.workspace).approval.policy).toBe("never");
  });

  it("project config cannot enable auto-approval, choose executables or credentials: the key is named", () => {
    const auto = setup("", "[approval]\nauto_approve = true\n");
    expect(() => applyIn(loadUserConfig(auto.file), auto.workspace)).toThrow(
      /key approval.auto_approve is not allowed.*project configuration can only/,
    );
    const agent = setup("", '[agents.claude]\nexecutable = "/tmp/evil"\n');
    expect(() => applyIn(loadUserConfig(agent.file), agent.workspace)).toThrow(/key agents is not allowed/);
  });

  it("project config can disable tools", () => {
    const { file, workspace } = setup("", '[tools]\ndisabled = ["read"]\n');
    expect(applyIn(loadUserConfig(file), workspace).tools.disabled).toEqual(["read"]);
  });

  it("[sandbox] is off by default; a project can turn it on or narrow it, and an attempt to turn it off or widen it names the file and key", () => {
    const defaults = setup("");
    expect(loadUserConfig(defaults.file).sandbox).toEqual({ mode: "off", writable: [], network: "any" });

    const user = '[sandbox]\nmode = "landlock"\nwritable = ["/srv/cache", "/srv/data"]\n';
    const narrowed = setup(user, '[sandbox]\nnetwork = "none"\nwritable = ["/srv/data"]\n');
    expect(applyIn(loadUserConfig(narrowed.file), narrowed.workspace).sandbox).toEqual({
      mode: "landlock",
      writable: ["/srv/data"],
      network: "none",
    });
    const turnedOn = setup("", '[sandbox]\nmode = "landlock"\n');
    expect(applyIn(loadUserConfig(turnedOn.file), turnedOn.workspace).sandbox.mode).toBe("landlock");

    const project = (ws: string) => join(ws, ".venom", "config.toml");
    const off = setup(user, '[sandbox]\nmode = "off"\n');
    expect(() => applyIn(loadUserConfig(off.file), off.workspace)).toThrow(
      `${project(off.workspace)}: key sandbox.mode: cannot be "off": your configuration confines with "landlock" (a project can only turn confinement on or narrow it)`,
    );
    const network = setup('[sandbox]\nnetwork = "none"\n', '[sandbox]\nnetwork = "any"\n');
    expect(() => applyIn(loadUserConfig(network.file), network.workspace)).toThrow(
      new RegExp(`${project(network.workspace)}: key sandbox.network: cannot be "any"`),
    );
    const wider = setup(user, '[sandbox]\nwritable = ["/home/me/.ssh"]\n');
    expect(() => applyIn(loadUserConfig(wider.file), wider.workspace)).toThrow(
      new RegExp(`${project(wider.workspace)}: key sandbox.writable: "/home/me/.ssh" is not in your configuration's sandbox.writable`),
    );
    const relative = setup('[sandbox]\nwritable = ["cache"]\n');
    expect(() => loadUserConfig(relative.file)).toThrow(/key sandbox.writable.0: must be an absolute path/);
  });

  it("[agents.NAME] sandbox confines one agent more narrowly (a mode, or a table); turning it off or widening it names the file and key", () => {
    const own = setup(
      '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n[agents.cut]\nexecutable = "/bin/true"\nsandbox = { network = "none" }\n',
    );
    const config = loadUserConfig(own.file);
    expect(agentSandbox(config, "boxed")).toEqual({ mode: "landlock", writable: [], network: "any" });
    expect(agentSandbox(config, "cut")).toEqual({ mode: "off", writable: [], network: "none" });
    // Everyone else keeps [sandbox] as it is.
    expect(agentSandbox(config, "other")).toEqual(config.sandbox);
    expect(agentSandbox(config, undefined)).toEqual({ mode: "off", writable: [], network: "any" });

    const off = setup('[sandbox]\nmode = "landlock"\n[agents.free]\nexecutable = "/bin/true"\nsandbox = "off"\n');
    expect(() => loadUserConfig(off.file)).toThrow(
      `${off.file}: key agents.free.sandbox.mode: cannot be "off": your configuration confines with "landlock" (an agent's override can only turn confinement on or narrow it)`,
    );
    const wider = setup('[agents.wide]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock", writable = ["/home/me/.ssh"] }\n');
    expect(() => loadUserConfig(wider.file)).toThrow(
      /key agents.wide.sandbox.writable: "\/home\/me\/.ssh" is not in your configuration's sandbox.writable/,
    );
    // A project narrows every agent too: the agent keeps only the writable paths both allow.
    const both = setup(
      '[sandbox]\nwritable = ["/srv/a", "/srv/b"]\n[agents.boxed]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock", writable = ["/srv/a"] }\n',
      '[sandbox]\nwritable = ["/srv/b"]\n',
    );
    expect(agentSandbox(applyIn(loadUserConfig(both.file), both.workspace), "boxed")).toEqual({
      mode: "landlock",
      writable: [],
      network: "any",
    });
  });
});
