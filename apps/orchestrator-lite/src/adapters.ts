import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_VARS, type AgentConfig, agentsOf } from "@venom/agents";
import type { Config } from "@venom/runtime";

// The agents venom-orch can launch (conformance/spec/security-model.txt, "`agent` tool"): each adapter is an
// executable and an argument vector, never a shell line; the prompt is
// appended as exactly one argument, after `promptArg` when the CLI wants a flag.

export interface Adapter {
  name: string;
  /** One of venom-orch's own adapters (BUILT_IN), overridden or not; false for an agent the user added. */
  builtIn: boolean;
  /** A program name looked up in `lookIn` then PATH, or an absolute path. */
  executable: string;
  /** Directories under the user's home searched before PATH, as a login shell would. */
  lookIn: string[];
  args: string[];
  /** The flag right before the prompt; "" puts the prompt alone. */
  promptArg: string;
  /** The agent's own state variable, pointed at $VENOM_HOME/agents/NAME/state. */
  stateVar?: string;
  /** Variables that carry its credentials or endpoints: never passed, whoever asks (a built-in's: @venom/agents, AGENT_VARS). */
  credentialVars: readonly string[];
  envPass: string[];
  /** `[agents.NAME.env]`: values the user wrote for this agent alone (the configuration refused credential-like names). */
  env: Record<string, string>;
  permissions: "default" | "full";
  /** `[agents.NAME] worktree = true`: its jobs get a git worktree of their own unless the call says otherwise. */
  worktree?: boolean;
  /** The agent's own full-autonomy switches, used only with permissions = "full". */
  fullArgs: string[];
  /** The agent's own sign-in (`venom-orch agents login NAME`), run in its private environment; null when it has none. */
  signIn: string[] | null;
  /** How venom-orch talks to it: a CLI with the prompt as an argument, or the Agent Client Protocol. */
  transport: "cli" | "acp" | "auto";
  /** The program that speaks ACP on stdio, when there is one; `fullModes` are its session modes that turn its own prompts off. */
  acp: AcpEntry | null;
  /** Set for an agent with no approvals of its own (pi): it runs every tool it is given, so it never asks anyone. */
  noApprovals?: true;
}

export interface AcpEntry {
  executable: string;
  args: string[];
  fullModes: string[];
  /** The npm package that installs `executable`, said when it is missing. */
  npmPackage?: string;
}

const LOCAL = [".local/bin"];

/** The built-in adapters (docs/venom-orch.md, "Adapters"); `[agents.NAME]` in the user's config overrides any field. */
const BUILT_IN: readonly Omit<Adapter, "env" | "builtIn">[] = [
  {
    name: "claude",
    executable: "claude",
    lookIn: LOCAL,
    args: [],
    promptArg: "-p",
    ...AGENT_VARS.claude,
    envPass: [],
    permissions: "default",
    fullArgs: ["--permission-mode", "bypassPermissions"],
    signIn: ["setup-token"],
    transport: "auto",
    acp: { executable: "claude-agent-acp", args: [], fullModes: ["bypassPermissions"], npmPackage: "@zed-industries/claude-agent-acp" },
  },
  {
    name: "codex",
    executable: "codex",
    lookIn: LOCAL,
    args: ["exec"],
    promptArg: "",
    ...AGENT_VARS.codex,
    envPass: [],
    permissions: "default",
    fullArgs: ["--dangerously-bypass-approvals-and-sandbox"],
    signIn: ["login"],
    transport: "auto",
    acp: { executable: "codex-acp", args: [], fullModes: ["full-access"], npmPackage: "@zed-industries/codex-acp" },
  },
  {
    name: "gemini",
    executable: "gemini",
    lookIn: LOCAL,
    args: [],
    promptArg: "-p",
    ...AGENT_VARS.gemini,
    envPass: [],
    permissions: "default",
    fullArgs: ["--approval-mode=yolo"],
    signIn: [],
    transport: "auto",
    acp: { executable: "gemini", args: ["--acp"], fullModes: ["yolo"], npmPackage: "@google/gemini-cli" },
  },
  {
    name: "grok",
    executable: "grok",
    lookIn: [".grok/bin", ...LOCAL],
    args: [],
    promptArg: "-p",
    ...AGENT_VARS.grok,
    envPass: [],
    permissions: "default",
    fullArgs: ["--always-approve"],
    signIn: ["login"],
    transport: "auto",
    acp: { executable: "grok", args: ["agent", "stdio"], fullModes: ["always-approve"] },
  },
  {
    name: "pi",
    executable: "pi",
    lookIn: LOCAL,
    args: ["--no-session"],
    promptArg: "-p",
    ...AGENT_VARS.pi,
    envPass: [],
    permissions: "default",
    fullArgs: [],
    signIn: null,
    transport: "auto",
    acp: { executable: "pi-acp", args: [], fullModes: [], npmPackage: "pi-acp" },
    noApprovals: true,
  },
  {
    name: "dsh",
    executable: "dsh",
    lookIn: LOCAL,
    args: [],
    promptArg: "-p",
    ...AGENT_VARS.dsh,
    envPass: [],
    permissions: "default",
    fullArgs: [],
    signIn: null,
    transport: "auto",
    acp: { executable: "dsh", args: ["--profile", "acp"], fullModes: [] },
  },
  {
    // A nested venom-orch: `venom-orch run AGENT -- PROMPT`, a delegate of this same instance one level deeper.
    name: "venom",
    executable: "venom-orch",
    lookIn: LOCAL,
    args: ["run", "claude", "--"],
    promptArg: "",
    credentialVars: [],
    envPass: [],
    permissions: "default",
    fullArgs: [],
    signIn: null,
    transport: "cli",
    acp: null,
  },
];

/** Every adapter: the built-ins with the user's overrides, plus agents the user added. */
export function adapters(config: Config): Adapter[] {
  const agents = agentsOf(config);
  const names = new Set([...BUILT_IN.map((a) => a.name), ...Object.keys(agents)]);
  return [...names].sort().map((name) => {
    const base = BUILT_IN.find((a) => a.name === name);
    const own = agents[name];
    const adapter: Adapter = {
      name,
      builtIn: base !== undefined,
      executable: own?.executable ?? base?.executable ?? name,
      lookIn: base?.lookIn ?? LOCAL,
      args: own?.args ?? base?.args ?? [],
      promptArg: own?.prompt_arg ?? base?.promptArg ?? "",
      credentialVars: [...(base?.credentialVars ?? []), ...(own?.credential_vars ?? [])],
      envPass: [...(base?.envPass ?? []), ...(own?.env_pass ?? [])],
      env: own?.env ?? {},
      permissions: own?.permissions ?? base?.permissions ?? "default",
      worktree: own?.worktree ?? false,
      fullArgs: base?.fullArgs ?? [],
      signIn: base?.signIn ?? null,
      transport: own?.acp ? "acp" : (own?.transport ?? base?.transport ?? "cli"),
      acp: acpEntry(name, own, base),
    };
    const stateVar = own?.state_var ?? base?.stateVar;
    return {
      ...adapter,
      ...(stateVar === undefined ? {} : { stateVar }),
      // A program of the user's own in its place may have approvals: nothing is said of it.
      ...(base?.noApprovals && !own?.executable ? { noApprovals: true as const } : {}),
    };
  });
}

/** The user's own program, said to speak ACP (or a new agent's), is the ACP entry; else the built-in's. */
function acpEntry(name: string, own: AgentConfig | undefined, base: Pick<Adapter, "acp"> | undefined): AcpEntry | null {
  const saysAcp = own?.acp === true || own?.transport === "acp";
  if (!saysAcp || (base && !own?.executable)) return base?.acp ?? null;
  return { executable: own?.executable ?? name, args: own?.args ?? [], fullModes: base?.acp?.fullModes ?? [] };
}

/**
 * Whether the agent can put its questions to you (docs/venom-orch.md, "Using real agents"): over ACP its permission
 * requests are relayed; a CLI agent with default permissions has nobody to ask, so its own policy refuses; an agent
 * without approvals of its own asks nobody either way.
 */
export function whoDecides(adapter: Adapter, transport: "cli" | "acp"): string {
  // A nested venom-orch relays its own agents' questions up the chain.
  if (adapter.name === "venom") return "asks you: its agents' questions are relayed to you";
  if (adapter.noApprovals) {
    return transport === "acp"
      ? `asks nothing of its tools: ${adapter.name} has no approvals of its own (over ACP only its extensions' questions come to you)`
      : `asks nothing: ${adapter.name} has no approvals of its own and runs every tool it is given`;
  }
  if (adapter.permissions === "full") {
    return transport === "acp"
      ? 'asks nothing: permissions = "full" puts it in a session mode that asks nothing'
      : 'asks nothing: permissions = "full" turns its own approvals and sandbox off';
  }
  if (transport === "acp") return "asks you: its permission requests come to you (ACP)";
  return 'cannot ask you: a CLI agent refuses edits and commands by its own policy; install its ACP entry point or set permissions = "full"';
}

/** Where an adapter's program is and how venom-orch talks to it, or why it is not offered. */
export type Resolution = { offered: true; argv0: string[]; transport: "cli" | "acp" } | { offered: false; why: string };

/**
 * How an adapter is launched: its CLI, or its ACP entry point (transport
 * "acp"; "auto" takes ACP when the entry resolves, else the CLI).
 */
export function resolveAdapter(adapter: Adapter, env: NodeJS.ProcessEnv = process.env): Resolution {
  if (adapter.transport === "cli") return withTransport(resolveProgram(adapter, adapter.executable, env), "cli");
  if (!adapter.acp) {
    if (adapter.transport === "auto") return withTransport(resolveProgram(adapter, adapter.executable, env), "cli");
    return { offered: false, why: `${adapter.name} has no ACP entry point; set executable with acp = true` };
  }
  const acp = withTransport(resolveProgram(adapter, adapter.acp.executable, env), "acp");
  if (acp.offered || adapter.transport === "acp") return acp;
  return withTransport(resolveProgram(adapter, adapter.executable, env), "cli");
}

function withTransport(found: Found, transport: "cli" | "acp"): Resolution {
  return found.offered ? { ...found, transport } : found;
}

type Found = { offered: true; argv0: string[] } | { offered: false; why: string };

/**
 * Resolve the executable the way a login shell would: the user's per-user
 * install directories first (`~/.local/bin`, `~/.grok/bin` for Grok), then PATH.
 * The `venom` agent falls back to this very install of venom-orch.
 */
function resolveProgram(adapter: Adapter, executable: string, env: NodeJS.ProcessEnv): Found {
  if (isAbsolute(executable)) {
    return isExecutable(executable)
      ? { offered: true, argv0: [executable] }
      : { offered: false, why: `${executable} is not an executable file` };
  }
  if (executable.includes("/")) return { offered: false, why: `executable ${executable} must be a program name or an absolute path` };
  const home = homedir();
  const dirs = [...adapter.lookIn.map((dir) => join(home, dir)), ...(env.PATH ?? "").split(delimiter).filter(Boolean)];
  for (const dir of dirs) {
    const candidate = join(dir, executable);
    if (isExecutable(candidate)) return { offered: true, argv0: [candidate] };
  }
  if (adapter.name === "venom" && executable === "venom-orch") return { offered: true, argv0: [process.execPath, ORCH_MAIN] };
  return { offered: false, why: `${executable} not found in ${adapter.lookIn.map((d) => `~/${d}`).join(", ")} or PATH` };
}

const ORCH_MAIN = fileURLToPath(new URL("./main.cjs", import.meta.url));

/** venom-mux's CLI, located (never imported): venom-orch runs it to start the multiplexer and to attach. */
export function muxMain(): string {
  const entry = createRequire(import.meta.url).resolve("@venom/mux");
  return join(entry, "..", "main.cjs");
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The argument vector of one launch: no shell ever sees it, and the prompt is
 * exactly one argument whatever it contains (quotes, `$()`, backticks, newlines).
 */
export function launchArgv(adapter: Adapter, resolution: Resolution & { offered: true }, prompt: string): string[] {
  const { argv0 } = resolution;
  // An ACP agent gets its prompt over the protocol, and full permissions through its own session mode.
  if (resolution.transport === "acp") return [...argv0, ...(adapter.acp?.args ?? [])];
  const full = adapter.permissions === "full" ? adapter.fullArgs : [];
  return [...argv0, ...adapter.args, ...full, ...(adapter.promptArg ? [adapter.promptArg] : []), prompt];
}
