import { join } from "node:path";
import { declaredVars } from "@venom/agents";
import { terminalSafe } from "@venom/proto";
import { type CliApp, type Command, Exit, loadUserConfigMemo, UsageError, type VenomHome } from "@venom/runtime/cli";
import { type Adapter, adapters, type Resolution, resolveAdapter, whoDecides } from "../adapters.js";

type Out = { out(line: string): void; err(line: string): void };

/**
 * `venom-orch agents list | doctor NAME | login NAME [--api-key] | logout NAME` (docs/venom-orch.md, "Using real
 * agents"): which agents are offered, how each is reached and whether it can ask you, before anything runs (no
 * daemon needed); signing one in inside its private home, with its own sign-in or a key Venom wires in.
 */
export function agentsCommand(app: CliApp): Command {
  return {
    name: "agents",
    summary: "agents list | doctor NAME | login NAME [--api-key] | logout NAME: what each agent is and can ask; sign one in privately",
    usage:
      "agents list | agents doctor NAME | agents login NAME [--api-key [--provider NAME]] | agents logout NAME\n\n" +
      "login runs the agent's own sign-in inside its private home; with --api-key it reads a key (without echo on a\n" +
      "terminal, else the first line of stdin) and wires it in as the agent documents. logout removes both.\n" +
      "--provider names pi's provider for the key (default anthropic). status NAME is doctor NAME.",
    // Signing in and out is account management: owner only. Looking is not.
    management: (_values, positionals) => positionals[0] === "login" || positionals[0] === "logout",
    options: { "api-key": { type: "boolean" }, provider: { type: "string" } },
    complete: async (home, at) => {
      if (!("argument" in at)) return [];
      if (at.argument === 0) return ["list", "doctor", "login", "logout", "status"];
      return at.argument === 1 ? adapters(await loadUserConfigMemo(home, app)).map((adapter) => adapter.name) : [];
    },
    async execute({ home, json, io, values, positionals }) {
      const [verb, name, ...extra] = positionals;
      // Through the memo: the configuration's zod schemas are loaded only when config.toml changed (config-memo.ts).
      const all = adapters(await loadUserConfigMemo(home, app));
      if (verb === "list" && name === undefined) return list(all, home, json, io);
      if (!["doctor", "status", "login", "logout"].includes(verb ?? "") || !name || extra.length > 0) {
        throw new UsageError("expected list, doctor NAME, login NAME or logout NAME");
      }
      const adapter = all.find((a) => a.name === name);
      if (!adapter) throw new UsageError(`no agent "${name}"; agents: ${all.map((a) => a.name).join(", ")}`);
      if (verb === "login") return login(adapter, all, home, io, values);
      if (verb === "logout") return logout(adapter, all, home, io);
      return doctor(adapter, all, home, json, io);
    },
  };
}

interface Facts {
  agent: string;
  offered: boolean;
  executable?: string;
  transport?: "cli" | "acp";
  why?: string;
  acpEntry: string;
  signedIn: boolean;
  permissions: "default" | "full";
  asks: string;
}

/** What one agent is, as `list` and `doctor` say it. */
async function facts(adapter: Adapter, home: VenomHome): Promise<Facts> {
  const resolution = resolveAdapter(adapter);
  const state = join(home.agents, adapter.name, "state");
  const { wiringOf } = await import("../api-keys.js");
  return {
    agent: adapter.name,
    offered: resolution.offered,
    ...(resolution.offered ? { executable: resolution.argv0.join(" "), transport: resolution.transport } : { why: resolution.why }),
    acpEntry: acpEntry(adapter, resolution),
    signedIn: wiringOf(adapter)?.signedIn(state) ?? false,
    permissions: adapter.permissions,
    asks: whoDecides(adapter, resolution.offered ? resolution.transport : "cli"),
  };
}

/** Whether the ACP entry point is installed, and what installs it when not. */
function acpEntry(adapter: Adapter, resolution: Resolution): string {
  if (!adapter.acp) return "none";
  if (resolution.offered && resolution.transport === "acp") return `installed (${resolution.argv0.join(" ")})`;
  if (adapter.transport === "cli") return 'not used (transport = "cli")';
  return `${adapter.acp.executable} not installed${adapter.acp.npmPackage ? ` (npm install -g ${adapter.acp.npmPackage})` : ""}`;
}

async function list(all: Adapter[], home: VenomHome, json: boolean, io: Out): Promise<number> {
  const rows = await Promise.all(all.map((adapter) => facts(adapter, home)));
  if (json) io.out(JSON.stringify({ agents: rows }));
  else
    for (const row of rows) {
      const full = row.permissions === "full" ? " FULL PERMISSIONS" : "";
      const acp = row.transport === "acp" ? " (ACP)" : "";
      io.out(`${row.agent.padEnd(8)} ${row.executable ? `offered: ${row.executable}${acp}${full}` : `not offered: ${row.why}`}`);
      if (row.executable) io.out(`${"".padEnd(8)} ${row.signedIn ? "signed in" : "not signed in"}; ${row.asks}`);
    }
  return Exit.ok;
}

async function doctor(adapter: Adapter, all: Adapter[], home: VenomHome, json: boolean, io: Out): Promise<number> {
  const row = await facts(adapter, home);
  const dir = join(home.agents, adapter.name);
  const version = row.executable ? await versionOf(adapter, all, home) : null;
  const report = {
    ...row,
    version,
    home: dir,
    stateVar: adapter.stateVar ?? null,
    // The names only: the values are the user's, and the report may be pasted into a bug report.
    env: Object.keys(adapter.env),
  };
  if (json) {
    io.out(JSON.stringify(report));
    return Exit.ok;
  }
  io.out(`${adapter.name}: ${row.executable ? `${row.executable}${version ? ` (${version})` : ""}` : `not offered: ${row.why}`}`);
  if (row.executable) io.out(`  transport: ${row.transport}; ACP entry point: ${row.acpEntry}`);
  io.out(`  private home ${dir}${adapter.stateVar ? `; ${adapter.stateVar} points at ${join(dir, "state")}` : ""}`);
  io.out(
    `  ${row.signedIn ? "signed in" : `not signed in (venom-orch agents login ${adapter.name}${adapter.signIn ? "" : " --api-key"})`}`,
  );
  io.out(`  ${row.asks}`);
  if (report.env.length > 0) io.out(`  [agents.${adapter.name}.env] sets ${report.env.join(", ")}`);
  return Exit.ok;
}

/** The first line `--version` prints, run inside the private home with the agent's own environment (bounded, escaped). */
async function versionOf(adapter: Adapter, all: Adapter[], home: VenomHome): Promise<string | null> {
  const resolution = resolveAdapter({ ...adapter, transport: "cli" });
  if (!resolution.offered) return null;
  const { agentEnvironment } = await import("../login.js");
  const env = agentEnvironment(adapter, declaredVars(all), home);
  const { execFile } = await import("node:child_process");
  const [file, ...args] = [...resolution.argv0, "--version"];
  return new Promise((resolve) => {
    execFile(file as string, args, { env, cwd: env.HOME, timeout: 5000, maxBuffer: 64 * 1024 }, (error, stdout) => {
      const first = String(stdout).split("\n")[0]?.trim() ?? "";
      resolve(error && !first ? null : terminalSafe(first.slice(0, 120), { singleLine: true }));
    });
  });
}

/** The agent's own sign-in in its private home, or (--api-key) a key read without echo and wired in as it documents. */
async function login(adapter: Adapter, all: Adapter[], home: VenomHome, io: Out, values: Record<string, unknown>): Promise<number> {
  // Loaded only here: the daemon-side runtime is not worth its start time for list and doctor.
  const { agentEnvironment, readSecretLine } = await import("../login.js");
  const env = agentEnvironment(adapter, declaredVars(all), home);
  const resolution = resolveAdapter({ ...adapter, transport: "cli" });
  if (values["api-key"]) {
    const { wiringOf } = await import("../api-keys.js");
    const wiring = wiringOf(adapter);
    if (!wiring) {
      throw new Error(
        `${adapter.name} documents no key file Venom can wire${adapter.signIn ? `: \`venom-orch agents login ${adapter.name}\` runs its own sign-in` : ""}`,
      );
    }
    const key = await readSecretLine(`API key for ${adapter.name} (not echoed): `);
    if (!key) throw new Error("no key was given; nothing was stored");
    const state = env[adapter.stateVar ?? ""] ?? join(env.HOME as string, "state");
    const provider = typeof values.provider === "string" ? values.provider : "anthropic";
    await wiring.wire({ state, env, argv0: resolution.offered ? resolution.argv0 : null, provider }, key);
    io.out(
      `${adapter.name}: key stored in its private home ${env.HOME} (mode 0600) and wired in; venom-orch agents doctor ${adapter.name} checks it`,
    );
    return Exit.ok;
  }
  if (!adapter.signIn)
    throw new Error(`${adapter.name} has no sign-in of its own: \`venom-orch agents login ${adapter.name} --api-key\` stores a key`);
  if (!resolution.offered) throw new Error(`${adapter.name} is not offered: ${resolution.why}`);
  const [file, ...args] = [...resolution.argv0, ...adapter.signIn];
  io.err(`signing ${adapter.name} in inside its private home ${env.HOME}`);
  const { spawn } = await import("node:child_process");
  const child = spawn(file as string, args, { env, stdio: "inherit", cwd: env.HOME });
  return new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? Exit.failed)));
}

/** Removes the key Venom wired in and what the agent's own sign-in left in its private home. */
async function logout(adapter: Adapter, all: Adapter[], home: VenomHome, io: Out): Promise<number> {
  const { agentEnvironment } = await import("../login.js");
  const { wiringOf } = await import("../api-keys.js");
  const wiring = wiringOf(adapter);
  if (!wiring)
    throw new Error(`${adapter.name} keeps its sign-in where Venom cannot tell; remove ${join(home.agents, adapter.name)} to forget it`);
  const env = agentEnvironment(adapter, declaredVars(all), home);
  const state = env[adapter.stateVar ?? ""] ?? join(env.HOME as string, "state");
  wiring.unwire({ state, env, argv0: null, provider: "anthropic" });
  io.out(`${adapter.name}: signed out (its key and sign-in removed from ${env.HOME})`);
  return Exit.ok;
}
