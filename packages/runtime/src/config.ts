import { isAbsolute, join } from "node:path";
import { openBeneath } from "@venom/native";
import { ApprovalPolicySchema, isStartUpVar, stricterPolicy } from "@venom/proto";
import { parse as parseToml } from "smol-toml";
import * as z from "zod";
import { ConfigError, readConfigText } from "./config-text.js";
import { DEFAULT_FRAME_LIMIT } from "./framing.js";
import type { WorkspaceFs } from "./workspace-fs.js";

export { ConfigError } from "./config-text.js";

const positiveInt = z.number().int().positive();

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

const SandboxMode = z.enum(["off", "landlock"]);
const SandboxNetwork = z.enum(["any", "none"]);
const WritablePaths = z.array(z.string().min(1).max(4096).refine(isAbsolute, "must be an absolute path")).max(64);

/**
 * What may narrow `[sandbox]`: a project's `[sandbox]`, or an agent's own
 * `[agents.NAME] sandbox` (a table of these keys, or just a mode). It may turn
 * confinement on or narrow it, never turn it off or widen it.
 */
const SandboxNarrowing = z.strictObject({
  mode: SandboxMode.optional(),
  writable: WritablePaths.optional(),
  network: SandboxNetwork.optional(),
});
type SandboxNarrowing = z.infer<typeof SandboxNarrowing>;

/**
 * `[agents.NAME]`: adds an agent or overrides a built-in adapter's fields
 * (docs/venom-orch.md, "Adapters"). User configuration only: a project config
 * that names any of these is an error.
 */
const AgentSchema = z.strictObject({
  executable: z.string().min(1).optional(),
  /** Arguments before the prompt. */
  args: z.array(z.string()).optional(),
  /** A flag put right before the prompt (e.g. "-p"); "" appends the prompt alone. */
  prompt_arg: z.string().optional(),
  state_var: EnvName.optional(),
  credential_vars: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, "a variable name or PREFIX*")).default([]),
  /** Variables of the daemon's environment the agent may see besides the base set; secret-shaped names never pass. */
  // venom-mux refuses these in any pane's env (docs/security-model.md, "Start-up variables"): said here, when the config loads.
  env_pass: z
    .array(
      EnvName.refine((name) => !isStartUpVar(name), {
        error: (issue) => `${issue.input} is a loader or start-up variable, which no agent may be passed`,
      }),
    )
    .default([]),
  permissions: z.enum(["default", "full"]).default("default"),
  /** Shorthand for transport = "acp": this agent's executable and args speak the Agent Client Protocol on stdio. */
  acp: z.boolean().default(false),
  /** "cli": prompt as an argument in a terminal pane; "acp": the Agent Client Protocol in a pipe pane; "auto": ACP when the adapter's ACP entry point resolves. */
  transport: z.enum(["cli", "acp", "auto"]).optional(),
  /** This agent's panes confined more narrowly than `[sandbox]`: `sandbox = "landlock"` or `sandbox = { network = "none" }`. */
  sandbox: z.union([SandboxMode.transform((mode) => ({ mode })), SandboxNarrowing]).optional(),
});

/**
 * `[sandbox]`: opt-in Landlock confinement of every process Venom starts
 * (docs/security-model.md, "Confinement (opt-in)"). A project and a per-agent
 * override (`[agents.NAME] sandbox`) may narrow it (SandboxNarrowing).
 */
const SandboxSchema = z.strictObject({
  mode: SandboxMode.default("off"),
  /** Extra paths a confined process may write (and read), beside its workspace and private home. */
  writable: WritablePaths.default([]),
  /** "none": TCP bind and connect are refused (Landlock ABI 4+). */
  network: SandboxNetwork.default("any"),
});

/** The whole configuration file, user layer (conformance/spec/design.md, "Configuration"). */
export const ConfigSchema = z.strictObject({
  approval: z.strictObject({ policy: ApprovalPolicySchema.default("on-risk") }).prefault({}),
  tools: z
    .strictObject({
      max_timeout_seconds: positiveInt.max(86_400).default(600),
      max_output_bytes: positiveInt.default(1024 * 1024),
      max_read_bytes: positiveInt.default(4 * 1024 * 1024),
      max_write_bytes: positiveInt.default(4 * 1024 * 1024),
      disabled: z.array(z.string()).default([]),
    })
    .prefault({}),
  agent: z.strictObject({ max_delegation_depth: z.number().int().min(0).max(16).default(2) }).prefault({}),
  protocol: z.strictObject({ max_frame_bytes: positiveInt.max(DEFAULT_FRAME_LIMIT).default(DEFAULT_FRAME_LIMIT) }).prefault({}),
  agents: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/), AgentSchema).default({}),
  mux: z
    .strictObject({
      prefix: z.string().default("C-b"),
      scrollback_lines: positiveInt.max(1_000_000).default(10_000),
      max_panes: positiveInt.max(4096).default(256),
      /** Let a pane's OSC 52 clipboard writes through to an attached terminal (tmux's set-clipboard); off: dropped. */
      allow_clipboard: z.boolean().default(false),
      /** Budget for every pane's screen and scrollback together, estimated at 12 bytes a cell plus 600 a line (what an xterm model measures). */
      max_screen_memory_mb: positiveInt.max(1024 * 1024).default(3072),
      /** The first pane index (tmux's base-index): a new pane takes the lowest free index from here. */
      base_index: z.number().int().min(0).max(1_000_000).default(0),
      /** The status line at the bottom of an attached client (tmux's status option). */
      status: z.boolean().default(true),
    })
    .prefault({}),
  sandbox: SandboxSchema.prefault({}),
});
export type Config = z.infer<typeof ConfigSchema>;

/**
 * What a project's `.venom/config.toml` may say: it is untrusted, so it can only
 * restrict. It may lower ceilings, choose a stricter policy and disable tools;
 * any other key (auto-approval, executables, credentials, agents, endpoints) is
 * an error that names it.
 */
const ProjectConfigSchema = z.strictObject({
  approval: z.strictObject({ policy: ApprovalPolicySchema.optional() }).optional(),
  tools: z
    .strictObject({
      max_timeout_seconds: positiveInt.optional(),
      max_output_bytes: positiveInt.optional(),
      max_read_bytes: positiveInt.optional(),
      max_write_bytes: positiveInt.optional(),
      disabled: z.array(z.string()).optional(),
    })
    .optional(),
  agent: z.strictObject({ max_delegation_depth: z.number().int().min(0).optional() }).optional(),
  protocol: z.strictObject({ max_frame_bytes: positiveInt.optional() }).optional(),
  sandbox: SandboxNarrowing.optional(),
});
type ProjectConfig = z.infer<typeof ProjectConfigSchema>;

/** A config file's TOML, parsed; undefined if there is no file. */
function parseTomlText(file: string, text: string | undefined): unknown | undefined {
  if (text === undefined) return undefined;
  try {
    return parseToml(text);
  } catch (error) {
    const where = (error as { line?: number }).line;
    throw new ConfigError(`${file}: not valid TOML${where ? ` (line ${where})` : ""}`);
  }
}

function describeIssue(file: string, issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => [...issue.path.map(String), k].join("."));
    return `${file}: key ${keys.join(", ")} is not allowed here`;
  }
  const key = issue.path.map(String).join(".") || "(top level)";
  return `${file}: key ${key}: ${issue.message}`;
}

function parseWith<T>(schema: z.ZodType<T>, file: string, raw: unknown, suffix = ""): T {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => describeIssue(file, i) + suffix).join("; "));
  return parsed.data;
}

/** Trusted layers: defaults, then the user's $VENOM_HOME/config.toml, then overrides from flags. */
export function loadUserConfig(configFile: string, overrides: { policy?: z.infer<typeof ApprovalPolicySchema> } = {}): Config {
  const config = userConfigFromText(configFile, readConfigText(configFile));
  if (overrides.policy) config.approval.policy = overrides.policy;
  return config;
}

/** The user's configuration from `text`, the contents of `configFile` (undefined: there is none), with every check loadUserConfig makes. */
export function userConfigFromText(configFile: string, text: string | undefined): Config {
  const config = parseWith(ConfigSchema, configFile, parseTomlText(configFile, text));
  for (const [name, agent] of Object.entries(config.agents)) {
    if (agent.sandbox)
      restrictSandbox(config.sandbox, agent.sandbox, { file: configFile, key: `agents.${name}.sandbox`, who: "an agent's override" });
  }
  return config;
}

/** The workspace's project config applied last, as a restriction only: read beneath the session's opened workspace. */
export function applyProjectConfig(config: Config, workspace: WorkspaceFs): Config {
  const file = join(workspace.root, ".venom", "config.toml");
  // A workspace removed or replaced under a running daemon is a ConfigError like a bad project config:
  // the session is refused its tools and told why, and the owner still reaches status and stop.
  let dir: number;
  try {
    dir = workspace.fd;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  // Opened beneath the workspace: a .venom or config.toml that is a symlink leading out is refused by the kernel.
  const raw = parseTomlText(
    file,
    readConfigText(file, (flags) => openBeneath(dir, ".venom/config.toml", flags)),
  );
  const project = parseWith(
    ProjectConfigSchema,
    file,
    raw,
    " (project configuration can only lower limits, choose a stricter approval policy, or disable tools)",
  );
  const where = { file, key: "sandbox", who: "a project" };
  return { ...restrict(config, project), sandbox: restrictSandbox(config.sandbox, project.sandbox ?? {}, where) };
}

/** `narrowing` may turn confinement on or narrow it; an attempt to turn it off or widen it is an error naming the file and key. */
function restrictSandbox(
  user: Config["sandbox"],
  narrowing: SandboxNarrowing,
  where: { file: string; key: string; who: string },
): Config["sandbox"] {
  const refuse = (key: string, why: string) =>
    new ConfigError(`${where.file}: key ${where.key}.${key}: ${why} (${where.who} can only turn confinement on or narrow it)`);
  if (narrowing.mode === "off" && user.mode === "landlock")
    throw refuse("mode", 'cannot be "off": your configuration confines with "landlock"');
  if (narrowing.network === "any" && user.network === "none") throw refuse("network", 'cannot be "any": your configuration says "none"');
  const wider = narrowing.writable?.find((path) => !user.writable.includes(path));
  if (wider !== undefined) throw refuse("writable", `${JSON.stringify(wider)} is not in your configuration's sandbox.writable`);
  return narrowSandbox(user, narrowing);
}

/** `base` narrowed: confined if either says so, network "none" if either does, only writable paths both allow. Never wider than `base`. */
export function narrowSandbox(base: Config["sandbox"], narrowing: SandboxNarrowing): Config["sandbox"] {
  return {
    mode: narrowing.mode === "landlock" ? "landlock" : base.mode,
    writable: narrowing.writable ? narrowing.writable.filter((path) => base.writable.includes(path)) : base.writable,
    network: narrowing.network === "none" ? "none" : base.network,
  };
}

/** The sandbox an agent's processes get: the session's, narrowed by the agent's own `[agents.NAME] sandbox`. */
export function agentSandbox(config: Config, agent: string | undefined): Config["sandbox"] {
  const own = agent === undefined ? undefined : config.agents[agent]?.sandbox;
  return own ? narrowSandbox(config.sandbox, own) : config.sandbox;
}

function restrict(config: Config, project: ProjectConfig): Config {
  const lower = (a: number, b: number | undefined) => (b === undefined ? a : Math.min(a, b));
  const t = project.tools ?? {};
  return {
    ...config,
    approval: {
      policy: project.approval?.policy ? stricterPolicy(config.approval.policy, project.approval.policy) : config.approval.policy,
    },
    tools: {
      max_timeout_seconds: lower(config.tools.max_timeout_seconds, t.max_timeout_seconds),
      max_output_bytes: lower(config.tools.max_output_bytes, t.max_output_bytes),
      max_read_bytes: lower(config.tools.max_read_bytes, t.max_read_bytes),
      max_write_bytes: lower(config.tools.max_write_bytes, t.max_write_bytes),
      disabled: [...new Set([...config.tools.disabled, ...(t.disabled ?? [])])],
    },
    agent: { max_delegation_depth: lower(config.agent.max_delegation_depth, project.agent?.max_delegation_depth) },
    protocol: { max_frame_bytes: lower(config.protocol.max_frame_bytes, project.protocol?.max_frame_bytes) },
  };
}
