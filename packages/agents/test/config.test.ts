import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentSandbox, applyProjectConfig, type Config, loadUserConfig, WorkspaceFs } from "@venom/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { agentsSection } from "../src/config.js";
import { agentsOf } from "../src/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function setup(user: string, project?: string) {
  const dir = mkdtempSync(join(tmpdir(), "venom-agents-config-"));
  dirs.push(dir);
  writeFileSync(join(dir, "config.toml"), user);
  const workspace = join(dir, "ws");
  mkdirSync(join(workspace, ".venom"), { recursive: true });
  if (project !== undefined) writeFileSync(join(workspace, ".venom", "config.toml"), project);
  return { file: join(dir, "config.toml"), workspace };
}

/** The configuration as venom-mux and venom-orch load it: with [agents] registered. */
function load(file: string): Config {
  return loadUserConfig(file, { sections: [agentsSection] });
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

describe("[agents] in config.toml", () => {
  it("adds agents and overrides built-ins' fields, with defaults", () => {
    const { file } = setup('[agents.helper]\nexecutable = "/bin/true"\n[agents.claude]\npermissions = "full"\n');
    expect(agentsOf(load(file))).toMatchObject({
      helper: { executable: "/bin/true", credential_vars: [], env_pass: [], permissions: "default", acp: false },
      claude: { permissions: "full" },
    });
    expect(agentsOf(load(setup("").file))).toEqual({});
    expect(() => load(setup('[agents.Bad_Name]\nexecutable = "/bin/true"\n').file)).toThrow(/key agents.Bad_Name/);
  });

  it("an agent's env_pass cannot pass a loader or start-up variable: the key and the name are said", () => {
    const { file } = setup('[agents.helper]\nexecutable = "/bin/true"\nenv_pass = ["HTTPS_PROXY", "NODE_OPTIONS"]\n');
    expect(() => load(file)).toThrow(/key agents\.helper\.env_pass\.1: NODE_OPTIONS is a loader or start-up variable/);
  });

  it("[agents.NAME] sandbox confines one agent more narrowly (a mode, or a table); turning it off or widening it names the file and key", () => {
    const own = setup(
      '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n[agents.cut]\nexecutable = "/bin/true"\nsandbox = { network = "none" }\n',
    );
    const config = load(own.file);
    expect(agentSandbox(config, "boxed")).toEqual({ mode: "landlock", writable: [], network: "any" });
    expect(agentSandbox(config, "cut")).toEqual({ mode: "off", writable: [], network: "none" });
    // Everyone else keeps [sandbox] as it is.
    expect(agentSandbox(config, "other")).toEqual(config.sandbox);
    expect(agentSandbox(config, undefined)).toEqual({ mode: "off", writable: [], network: "any" });

    const off = setup('[sandbox]\nmode = "landlock"\n[agents.free]\nexecutable = "/bin/true"\nsandbox = "off"\n');
    expect(() => load(off.file)).toThrow(
      `${off.file}: key agents.free.sandbox.mode: cannot be "off": your configuration confines with "landlock" (an agent's override can only turn confinement on or narrow it)`,
    );
    const wider = setup('[agents.wide]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock", writable = ["/home/me/.ssh"] }\n');
    expect(() => load(wider.file)).toThrow(
      /key agents.wide.sandbox.writable: "\/home\/me\/.ssh" is not in your configuration's sandbox.writable/,
    );
    // A project narrows every agent too: the agent keeps only the writable paths both allow.
    const both = setup(
      '[sandbox]\nwritable = ["/srv/a", "/srv/b"]\n[agents.boxed]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock", writable = ["/srv/a"] }\n',
      '[sandbox]\nwritable = ["/srv/b"]\n',
    );
    expect(agentSandbox(applyIn(load(both.file), both.workspace), "boxed")).toEqual({
      mode: "landlock",
      writable: [],
      network: "any",
    });
  });
});
