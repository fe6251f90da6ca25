import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  agentSandbox,
  applyProjectConfig,
  type Config,
  ConfigError,
  configSection,
  loadUserConfig,
  SandboxNarrowingSchema,
} from "../src/config.js";
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

/** An app's section of its own, as an app registers one. */
const LIMITS = configSection("limits", z.strictObject({ max_things: z.number().int().positive().default(10) }).prefault({}));

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
    expect(() => applyIn(loadUserConfig(agent.file), agent.workspace)).toThrow(/\[agents\] is user configuration only/);
  });

  it("an app's section is validated under its key: an error names the file and key; a project may not set it", () => {
    const { file, workspace } = setup("[limits]\nmax_things = 3\n", "[limits]\nmax_things = 100\n");
    expect(LIMITS.read(loadUserConfig(file, { sections: [LIMITS] }))).toEqual({ max_things: 3 });
    expect(LIMITS.read(loadUserConfig(setup("").file, { sections: [LIMITS] }))).toEqual({ max_things: 10 });
    expect(() => applyIn(loadUserConfig(file, { sections: [LIMITS] }), workspace)).toThrow(/\[limits\] is user configuration only/);
    const bad = setup('[limits]\nmax_things = "many"\n');
    expect(() => loadUserConfig(bad.file, { sections: [LIMITS] })).toThrow(new RegExp(`${bad.file}: key limits.max_things: .*number`));
    const unknown = setup("[limits]\nmax_thing = 3\n");
    expect(() => loadUserConfig(unknown.file, { sections: [LIMITS] })).toThrow(/key limits.max_thing is not allowed/);
  });

  it("another app's table is left to that app; a key outside any table, or a runtime section's typo inside one, is still refused", () => {
    const { file } = setup('[limits]\nmax_things = "not mine to judge"\n[tools]\nmax_timeout_seconds = 30\n');
    const config = loadUserConfig(file);
    expect(config.tools.max_timeout_seconds).toBe(30);
    expect(config.sections).toEqual({});
    expect(() => LIMITS.read(config)).toThrow(/config section \[limits\] was not loaded/);
    expect(() => loadUserConfig(setup("max_things = 3\n").file)).toThrow(/key max_things is not allowed/);
    expect(() => loadUserConfig(setup('[sandbox]\nmod = "landlock"\n').file)).toThrow(/key sandbox.mod is not allowed/);
  });

  it("a misspelled [sandbox], [approval] or [tools] is refused, not taken for another app's table and skipped", () => {
    for (const [table, meant] of [
      ["sandbx", "sandbox"],
      ["Sandbox", "sandbox"],
      ["aproval", "approval"],
      ["tool", "tools"],
    ]) {
      const { file } = setup(`[${table}]\nmode = "landlock"\n`);
      expect(() => loadUserConfig(file)).toThrow(
        `${file}: [${table}] is no section Venom reads: did you mean [${meant}]? (as written, it is ignored)`,
      );
    }
    // A name far from every guarded section is another app's, as before; one the program registered is its own.
    expect(loadUserConfig(setup("[agents.claude]\nexecutable = 1\n").file).sections).toEqual({});
    expect(loadUserConfig(setup("[mux]\nx = 1\n").file).sections).toEqual({});
  });

  it("an app's section has a safe name of its own, not one of the runtime's", () => {
    expect(() => configSection("tools", z.strictObject({}))).toThrow(/config section \[tools\] is one of the runtime's own/);
    expect(() => configSection("../x", z.strictObject({}))).toThrow(/app name "..\/x"/);
  });

  it("an app's section may confine named agents more narrowly than [sandbox], never less: the error names the file and the key", () => {
    const BOXES = configSection("boxes", z.record(z.string(), z.strictObject({ sandbox: SandboxNarrowingSchema })).default({}), {
      sandboxes: (boxes) => Object.fromEntries(Object.entries(boxes).map(([name, box]) => [name, box.sandbox])),
    });
    const { file } = setup('[boxes.cut]\nsandbox = { network = "none" }\n');
    const config = loadUserConfig(file, { sections: [BOXES] });
    expect(agentSandbox(config, "cut")).toEqual({ mode: "off", writable: [], network: "none" });
    expect(agentSandbox(config, "other")).toEqual(config.sandbox);
    expect(agentSandbox(config, undefined)).toEqual(config.sandbox);
    const off = setup('[sandbox]\nmode = "landlock"\n[boxes.free]\nsandbox = { mode = "off" }\n');
    expect(() => loadUserConfig(off.file, { sections: [BOXES] })).toThrow(
      `${off.file}: key boxes.free.sandbox.mode: cannot be "off": your configuration confines with "landlock" (an agent's override can only turn confinement on or narrow it)`,
    );
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
});
