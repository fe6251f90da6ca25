/**
 * The credential, endpoint and state variables of the agents Venom knows by
 * name: the one list that venom-mux (no delegated pane inherits any of them)
 * and venom-orch (its built-in adapters, docs/venom-orch.md, "Adapters")
 * read. A trailing `*` names a prefix. `stateVar` is where the agent keeps
 * its state, which a delegated run points inside its private home.
 */
export const AGENT_VARS = {
  claude: {
    stateVar: "CLAUDE_CONFIG_DIR",
    credentialVars: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN"],
  },
  codex: { stateVar: "CODEX_HOME", credentialVars: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "CODEX_API_KEY"] },
  gemini: {
    stateVar: "GEMINI_CLI_HOME",
    credentialVars: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"],
  },
  grok: { stateVar: "GROK_HOME", credentialVars: ["GROK_*", "XAI_API_KEY"] },
  pi: { stateVar: "PI_CODING_AGENT_DIR", credentialVars: ["PI_*"] },
  dsh: { stateVar: "DSH_HOME", credentialVars: ["DSH_*", "DEEPSEEK_API_KEY"] },
} as const satisfies Record<string, AgentVars>;

/**
 * The prefixes of the agents' vendors and programs: a variable named so may
 * carry an agent's credentials, endpoint or state, of an agent listed above
 * or not (GOOGLE_, a cloud's, is the runtime's own: child-env.ts).
 */
export const AGENT_VAR_PREFIXES = [
  "ANTHROPIC_*",
  "CLAUDE_*",
  "OPENAI_*",
  "CODEX_*",
  "GEMINI_*",
  "XAI_*",
  "GROK_*",
  "DEEPSEEK_*",
  "DSH_*",
  "PI_*",
];

export interface AgentVars {
  stateVar?: string;
  credentialVars: readonly string[];
}

/** Every variable of `agents` (AGENT_VARS, with what config.toml adds) and AGENT_VAR_PREFIXES: none reaches a delegated process. */
export function declaredVars(agents: Iterable<AgentVars>): string[] {
  return [...new Set([...AGENT_VAR_PREFIXES, ...[...agents].flatMap((a) => [...a.credentialVars, ...(a.stateVar ? [a.stateVar] : [])])])];
}

/** The variables of every agent, known by name (AGENT_VARS) or added in `[agents]`: none reaches a delegated process. */
export function everyDeclaredVar(agents: Record<string, { credential_vars: readonly string[]; state_var?: string | undefined }>): string[] {
  const configured = Object.values(agents).map(
    (agent): AgentVars => ({ credentialVars: agent.credential_vars, ...(agent.state_var ? { stateVar: agent.state_var } : {}) }),
  );
  return declaredVars([...Object.values(AGENT_VARS), ...configured]);
}
