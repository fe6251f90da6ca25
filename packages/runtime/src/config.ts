import { isAbsolute, join } from "node:path";
import { openBeneath } from "@venom/native";
import { ApprovalPolicySchema, stricterPolicy, terminalLine } from "@venom/proto";
import { parse as parseToml } from "smol-toml";
import * as z from "zod";
import { sectionOf } from "./config-sections.js";
import { ConfigError, readConfigText } from "./config-text.js";
import { DEFAULT_FRAME_LIMIT } from "./framing.js";
import { appName } from "./home.js";
import type { WorkspaceFs } from "./workspace-fs.js";

export { ConfigError } from "./config-text.js";

const positiveInt = z.number().int().positive();

/** An environment variable's name. */
export const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

export const SandboxModeSchema = z.enum(["off", "landlock"]);
const SandboxNetwork = z.enum(["any", "none"]);
const WritablePaths = z.array(z.string().min(1).max(4096).refine(isAbsolute, "must be an absolute path")).max(64);

/**
 * What may narrow `[sandbox]`: a project's `[sandbox]`, or one agent's own
 * (an app section's, e.g. `[agents.NAME] sandbox`: ConfigSection.sandboxes).
 * It may turn confinement on or narrow it, never turn it off or widen it.
 */
export const SandboxNarrowingSchema = z.strictObject({
  mode: SandboxModeSchema.optional(),
  writable: WritablePaths.optional(),
  network: SandboxNetwork.optional(),
});
export type SandboxNarrowing = z.infer<typeof SandboxNarrowingSchema>;

/**
 * `[sandbox]`: opt-in Landlock confinement of every process Venom starts
 * (docs/security-model.md, "Confinement (opt-in)"). A project and a per-agent
 * override may narrow it (SandboxNarrowing).
 */
const SandboxSchema = z.strictObject({
  mode: SandboxModeSchema.default("off"),
  /** Extra paths a confined process may write (and read), beside its workspace and private home. */
  writable: WritablePaths.default([]),
  /** "none": TCP bind and connect are refused (Landlock ABI 4+). */
  network: SandboxNetwork.default("any"),
});

/** The runtime's own sections of the configuration file, user layer (conformance/spec/design.md, "Configuration"). */
const CoreConfigSchema = z.strictObject({
  approval: z
    .strictObject({
      policy: ApprovalPolicySchema.default("on-risk"),
      /** How long a question waits in venom-orch's inbox before it is denied (docs/venom-orch.md, "The inbox"). */
      wait_seconds: positiveInt.max(7 * 86_400).default(3600),
    })
    .prefault({}),
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
  sandbox: SandboxSchema.prefault({}),
});

/** One agent confined more narrowly than `[sandbox]`, and the table of config.toml that says so (`agents.NAME`). */
export interface AgentSandbox {
  table: string;
  sandbox: SandboxNarrowing;
}

/** The validated configuration: the runtime's sections, then what the app's registered sections hold. */
export type Config = z.infer<typeof CoreConfigSchema> & {
  /** Agents whose processes are confined more narrowly than `[sandbox]`, by name (ConfigSection.sandboxes). */
  agentSandboxes: Record<string, AgentSandbox>;
  /** The registered app sections' values, by key: read each through its ConfigSection. */
  sections: Record<string, unknown>;
};

/**
 * A section of config.toml that an app owns (venom-mux's `[mux]`, the
 * `[agents]` of venom-mux and venom-orch): a zod schema with its defaults,
 * validated under its key by each daemon and CLI that registers it, whose
 * errors name the file and key as the runtime's own sections' do. The file is
 * shared by every app of the instance, so a program leaves a table it has
 * not registered to the app that owns it. `sandboxes`, for a section that
 * confines agents more narrowly than `[sandbox]` (its `[KEY.NAME] sandbox`):
 * each is checked to only narrow it, and sandboxFor applies it.
 */
export interface ConfigSection<T = unknown> {
  readonly key: string;
  readonly schema: z.ZodType<T>;
  sandboxes?(value: T): Record<string, SandboxNarrowing>;
  /** This section's value in `config`, which a program that registered it loaded. */
  read(config: Config): T;
}

/**
 * A section under `[key]`: an app's own section is under the app's name
 * (`[mux]`); a section apps share has a name of its own (`[agents]`). Never
 * one of the runtime's own.
 */
export function configSection<T>(
  key: string,
  schema: z.ZodType<T>,
  options: { sandboxes?: (value: T) => Record<string, SandboxNarrowing> } = {},
): ConfigSection<T> {
  appName(key);
  if (key in CoreConfigSchema.shape) throw new TypeError(`config section [${key}] is one of the runtime's own`);
  return {
    key,
    schema,
    ...options,
    read: (config) => sectionOf<T>(config, key),
  };
}

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
  sandbox: SandboxNarrowingSchema.optional(),
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

/** What loadUserConfig takes besides the file: the program's sections, and overrides from flags. */
export interface LoadOptions {
  sections?: readonly ConfigSection[];
  policy?: z.infer<typeof ApprovalPolicySchema>;
}

/** Trusted layers: defaults, then the user's $VENOM_HOME/config.toml, then overrides from flags. */
export function loadUserConfig(configFile: string, options: LoadOptions = {}): Config {
  const config = userConfigFromText(configFile, readConfigText(configFile), options.sections);
  if (options.policy) config.approval.policy = options.policy;
  return config;
}

/** The user's configuration from `text`, the contents of `configFile` (undefined: there is none), with every check loadUserConfig makes. */
export function userConfigFromText(configFile: string, text: string | undefined, sections: readonly ConfigSection[] = []): Config {
  const own = z.strictObject({ ...CoreConfigSchema.shape, ...Object.fromEntries(sections.map((s) => [s.key, s.schema])) });
  const parsed = parseWith(own, configFile, withoutOthersSections(configFile, parseTomlText(configFile, text), own.shape)) as Record<
    string,
    unknown
  >;
  const core = Object.fromEntries(Object.keys(CoreConfigSchema.shape).map((key) => [key, parsed[key]])) as z.infer<typeof CoreConfigSchema>;
  const config: Config = { ...core, agentSandboxes: {}, sections: Object.fromEntries(sections.map((s) => [s.key, parsed[s.key]])) };
  for (const section of sections) {
    for (const [name, sandbox] of Object.entries(section.sandboxes?.(parsed[section.key]) ?? {})) {
      const table = `${section.key}.${name}`;
      restrictSandbox(config.sandbox, sandbox, { file: configFile, key: `${table}.sandbox`, who: "an agent's override" });
      config.agentSandboxes[name] = { table, sandbox };
    }
  }
  return config;
}

/**
 * The runtime's sections whose loss weakens protection: `[sandbox]` confines,
 * `[approval]` asks, `[tools]` turns tools off. A misspelled one would be taken
 * for another app's table and silently skipped, so a table name this close to
 * one of them (and no section this program knows) is refused.
 */
const GUARDED_SECTIONS = ["sandbox", "approval", "tools"] as const;
const MAX_TYPO_DISTANCE = 2;

/**
 * The file's tables without those of other apps (a table this program knows
 * no key of): their owners validate them. Any other unknown key stays, for
 * the schema to refuse by name.
 */
function withoutOthersSections(file: string, raw: unknown, known: object): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const isTable = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
  return Object.fromEntries(
    Object.entries(raw).filter(([key, value]) => {
      if (key in known || !isTable(value)) return true;
      const meant = GUARDED_SECTIONS.find((section) => editDistance(key, section) <= MAX_TYPO_DISTANCE);
      if (meant) {
        throw new ConfigError(
          `${file}: [${terminalLine(key, 64)}] is no section Venom reads: did you mean [${meant}]? (as written, it is ignored)`,
        );
      }
      return false;
    }),
  );
}

/** Levenshtein distance between two short names. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
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
  refuseUserSections(file, raw);
  const project = parseWith(
    ProjectConfigSchema,
    file,
    raw,
    " (project configuration can only lower limits, choose a stricter approval policy, or disable tools)",
  );
  const where = { file, key: "sandbox", who: "a project" };
  return { ...restrict(config, project), sandbox: restrictSandbox(config.sandbox, project.sandbox ?? {}, where) };
}

/**
 * A table a project's config.toml may not have at all: every section but the project's own is the user's alone (the
 * agents to run, the hosts to reach, the command that notifies: what to start, never a project's to say). Named so, not
 * as a key the schema does not know.
 */
function refuseUserSections(file: string, raw: unknown): void {
  const isTable = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
  if (typeof raw !== "object" || raw === null) return;
  const key = Object.keys(raw).find((k) => !(k in ProjectConfigSchema.shape) && isTable((raw as Record<string, unknown>)[k]));
  if (key !== undefined) {
    throw new ConfigError(
      `${file}: [${terminalLine(key, 64)}] is user configuration only ($VENOM_HOME/config.toml): a project cannot add it`,
    );
  }
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

/** The sandbox an agent's processes get: the session's, narrowed by the agent's own (Config.agentSandboxes). */
export function agentSandbox(config: Config, agent: string | undefined): Config["sandbox"] {
  const own = agent === undefined ? undefined : config.agentSandboxes[agent]?.sandbox;
  return own ? narrowSandbox(config.sandbox, own) : config.sandbox;
}

function restrict(config: Config, project: ProjectConfig): Config {
  const lower = (a: number, b: number | undefined) => (b === undefined ? a : Math.min(a, b));
  const t = project.tools ?? {};
  return {
    ...config,
    approval: {
      ...config.approval,
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
