import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApprovalPolicySchema, stricterPolicy } from "@venom/proto";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { DEFAULT_FRAME_LIMIT } from "./framing.js";

const positiveInt = z.number().int().positive();

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

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
  env_pass: z.array(EnvName).default([]),
  permissions: z.enum(["default", "full"]).default("default"),
  acp: z.boolean().default(false),
});

/** The whole configuration file, user layer (DESIGN.md, "Configuration"). */
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
    })
    .prefault({}),
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
});
type ProjectConfig = z.infer<typeof ProjectConfigSchema>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function readToml(file: string): unknown | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
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
  const config = parseWith(ConfigSchema, configFile, readToml(configFile));
  if (overrides.policy) config.approval.policy = overrides.policy;
  return config;
}

/** The workspace's project config applied last, as a restriction only. */
export function applyProjectConfig(config: Config, workspace: string): Config {
  const file = join(workspace, ".venom", "config.toml");
  const project = parseWith(
    ProjectConfigSchema,
    file,
    readToml(file),
    " (project configuration can only lower limits, choose a stricter approval policy, or disable tools)",
  );
  return restrict(config, project);
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
