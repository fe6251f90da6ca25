import { AgentNameSchema, isStartUpVar } from "@venom/proto";
import { configSection, EnvNameSchema, SandboxModeSchema, SandboxNarrowingSchema } from "@venom/runtime/config";
import * as z from "zod";
import { AGENTS_SECTION } from "./section.js";

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
  state_var: EnvNameSchema.optional(),
  credential_vars: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, "a variable name or PREFIX*")).default([]),
  /** Variables of the daemon's environment the agent may see besides the base set; secret-shaped names never pass. */
  // venom-mux refuses these in any pane's env (docs/security-model.md, "Start-up variables"): said here, when the config loads.
  env_pass: z
    .array(
      EnvNameSchema.refine((name) => !isStartUpVar(name), {
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
  sandbox: z.union([SandboxModeSchema.transform((mode) => ({ mode })), SandboxNarrowingSchema]).optional(),
});
export type AgentConfig = z.infer<typeof AgentSchema>;

/**
 * The `[agents]` section, which venom-mux and venom-orch both register: each
 * agent's own sandbox narrows `[sandbox]` for its processes (the runtime
 * checks it only narrows, and applies it: ConfigSection.sandboxes).
 */
export const agentsSection = configSection(AGENTS_SECTION, z.record(AgentNameSchema, AgentSchema).default({}), {
  sandboxes: (agents) =>
    Object.fromEntries(Object.entries(agents).flatMap(([name, agent]) => (agent.sandbox ? [[name, agent.sandbox]] : []))),
});
