import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { declaredVars } from "@venom/agents";
import { type CliApp, type Command, Exit, loadUserConfigMemo, UsageError, type VenomHome } from "@venom/runtime/cli";
import { type Adapter, adapters, resolveAdapter } from "../adapters.js";

/**
 * `venom-orch agents list|status|login NAME`: which agents are offered and why
 * (no daemon needed), what an agent's private home holds (never its
 * contents), and signing an agent in inside that home.
 */
export function agentsCommand(app: CliApp): Command {
  return {
    name: "agents",
    summary: "agents list | status NAME | login NAME: which agents are offered and why; sign one in inside its private home",
    usage: "agents list | agents status NAME | agents login NAME [--stdin]",
    // Signing in is account management: owner only. Listing is not.
    management: (_values, positionals) => positionals[0] === "login",
    options: { stdin: { type: "boolean" } },
    async execute({ home, json, io, positionals }) {
      const [verb, name, ...extra] = positionals;
      // Through the memo: the configuration's zod schemas are loaded only when config.toml changed (config-memo.ts).
      const all = adapters(await loadUserConfigMemo(home, app));
      if (verb === "list" && name === undefined) return list(all, json, io);
      if ((verb === "status" || verb === "login") && name && extra.length === 0) {
        const adapter = all.find((a) => a.name === name);
        if (!adapter) throw new UsageError(`no agent "${name}"; agents: ${all.map((a) => a.name).join(", ")}`);
        if (verb === "status") return status(adapter, home, json, io);
        return login(adapter, all, home, io);
      }
      throw new UsageError("expected list, status NAME or login NAME");
    },
  };
}

function list(all: Adapter[], json: boolean, io: { out(line: string): void }): number {
  const rows = all.map((adapter) => {
    const resolution = resolveAdapter(adapter);
    return {
      agent: adapter.name,
      offered: resolution.offered,
      ...(resolution.offered ? { executable: resolution.argv0.join(" "), transport: resolution.transport } : { why: resolution.why }),
      permissions: adapter.permissions,
    };
  });
  if (json) io.out(JSON.stringify({ agents: rows }));
  else
    for (const row of rows) {
      const full = row.permissions === "full" ? " FULL PERMISSIONS" : "";
      const acp = "transport" in row && row.transport === "acp" ? " (ACP)" : "";
      io.out(`${row.agent.padEnd(8)} ${"executable" in row ? `offered: ${row.executable}${acp}${full}` : `not offered: ${row.why}`}`);
    }
  return Exit.ok;
}

function status(adapter: Adapter, home: VenomHome, json: boolean, io: { out(line: string): void }): number {
  const dir = join(home.agents, adapter.name);
  const keyFile = "keyFile" in adapter.login ? join(dir, "state", adapter.login.keyFile) : null;
  const facts = {
    agent: adapter.name,
    home: dir,
    exists: existsSync(dir),
    mode: existsSync(dir) ? `0${(lstatSync(dir).mode & 0o777).toString(8)}` : null,
    stateVar: adapter.stateVar ?? null,
    key: keyFile ? existsSync(keyFile) : null,
  };
  if (json) io.out(JSON.stringify(facts));
  else {
    io.out(`${adapter.name}: private home ${dir} (${facts.exists ? `mode ${facts.mode}` : "not created yet"})`);
    if (adapter.stateVar) io.out(`  ${adapter.stateVar} points at ${join(dir, "state")}`);
    if (keyFile) io.out(`  key: ${facts.key ? "stored" : "none"} (venom-orch agents login ${adapter.name})`);
  }
  return Exit.ok;
}

/** The agent's own sign-in in its private home, or a key read without echo into its key file (0600). */
async function login(adapter: Adapter, all: Adapter[], home: VenomHome, io: { out(line: string): void; err(line: string): void }) {
  // Loaded only here: the daemon-side runtime is not worth its start time for list and status.
  const { agentEnvironment, readSecretLine, storeKey } = await import("../login.js");
  const env = agentEnvironment(adapter, declaredVars(all), home);
  if ("keyFile" in adapter.login) {
    const key = await readSecretLine(`API key for ${adapter.name} (not echoed): `);
    if (!key) throw new Error("no key was given; nothing was stored");
    const path = storeKey(join(env.HOME as string, "state"), adapter.login.keyFile, key);
    io.out(`stored the key for ${adapter.name} in ${path} (mode 0600)`);
    return Exit.ok;
  }
  const resolution = resolveAdapter(adapter);
  if (!resolution.offered) throw new Error(`${adapter.name} is not offered: ${resolution.why}`);
  const [file, ...args] = [...resolution.argv0, ...adapter.login.argv];
  io.err(`signing ${adapter.name} in inside its private home ${env.HOME}`);
  const { spawn } = await import("node:child_process");
  const child = spawn(file as string, args, { env, stdio: "inherit", cwd: env.HOME });
  return new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? Exit.failed)));
}
