import { AgentNameSchema, isSecretShaped, isStartUpVar } from "@venom/proto";
import { configSection, EnvNameSchema, SandboxModeSchema, SandboxNarrowingSchema } from "@venom/runtime/config";
import * as z from "zod";
import { AGENTS_SECTION } from "./section.js";
import { AGENT_VARS, everyDeclaredVar } from "./vars.js";

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
  /**
   * Values for this agent alone, written by the user (an endpoint, a proxy, a setting): never a credential, which
   * `venom-orch agents login NAME --api-key` stores instead (docs/venom-orch.md, "Using real agents").
   */
  env: z
    .record(EnvNameSchema, z.string().max(64 * 1024))
    .superRefine((env, ctx) => {
      for (const name of Object.keys(env)) {
        const why = isSecretShaped(name)
          ? "looks like a credential, which is never written in config.toml: store a key with `venom-orch agents login NAME --api-key`"
          : isStartUpVar(name)
            ? "is a loader or start-up variable, which no agent may be given"
            : SET_BY_VENOM.includes(name)
              ? "is set by Venom for every agent (its private home)"
              : undefined;
        if (why) ctx.addIssue({ code: "custom", path: [name], message: `${name} ${why}` });
      }
    })
    .default({}),
  permissions: z.enum(["default", "full"]).default("default"),
  /** Run this agent's jobs in a git worktree of their own by default, as `venom-orch run --worktree`. */
  worktree: z.boolean().default(false),
  /** Shorthand for transport = "acp": this agent's executable and args speak the Agent Client Protocol on stdio. */
  acp: z.boolean().default(false),
  /** "cli": prompt as an argument in a terminal pane; "acp": the Agent Client Protocol in a pipe pane; "auto": ACP when the adapter's ACP entry point resolves. */
  transport: z.enum(["cli", "acp", "auto"]).optional(),
  /** This agent's panes confined more narrowly than `[sandbox]`: `sandbox = "landlock"` or `sandbox = { network = "none" }`. */
  sandbox: z.union([SandboxModeSchema.transform((mode) => ({ mode })), SandboxNarrowingSchema]).optional(),
});
export type AgentConfig = z.infer<typeof AgentSchema>;

/** What every delegated agent's environment sets itself (the runtime's child-env.ts): not the user's to set per agent. */
const SET_BY_VENOM = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"];

/**
 * What the whole `[agents]` table must keep: a name in `env_pass` that the allow-list always drops is an error, not
 * a silent drop; an agent's env never sets its state variable, which points inside its private home.
 */
function checkAgents(agents: Record<string, AgentConfig>, ctx: z.RefinementCtx): void {
  const declared = everyDeclaredVar(agents);
  for (const [name, agent] of Object.entries(agents)) {
    for (const [i, pass] of agent.env_pass.entries()) {
      if (isSecretShaped(pass, declared)) {
        ctx.addIssue({
          code: "custom",
          path: [name, "env_pass", i],
          message: `${pass} is never passed to an agent (a credential-like name, or an agent's credential, endpoint or state variable): give a non-secret value in [agents.${name}.env], a key with \`venom-orch agents login ${name} --api-key\``,
        });
      }
    }
    const stateVar = agent.state_var ?? (AGENT_VARS as Record<string, { stateVar?: string }>)[name]?.stateVar;
    if (stateVar !== undefined && stateVar in agent.env) {
      ctx.addIssue({
        code: "custom",
        path: [name, "env", stateVar],
        message: `${stateVar} is set by Venom: it points inside ${name}'s private home`,
      });
    }
  }
}

/**
 * The `[agents]` section, which venom-mux and venom-orch both register: each
 * agent's own sandbox narrows `[sandbox]` for its processes (the runtime
 * checks it only narrows, and applies it: ConfigSection.sandboxes).
 */
export const agentsSection = configSection(AGENTS_SECTION, z.record(AgentNameSchema, AgentSchema).superRefine(checkAgents).default({}), {
  sandboxes: (agents) =>
    Object.fromEntries(Object.entries(agents).flatMap(([name, agent]) => (agent.sandbox ? [[name, agent.sandbox]] : []))),
});
