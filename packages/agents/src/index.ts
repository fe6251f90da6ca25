// Without zod: a CLI command (venom-orch agents) reads [agents] from the memo of the validated file.
// The section's schema is "@venom/agents/config", for the programs that validate it.

export { agentsOf } from "./agents-of.js";
export type { AgentConfig } from "./config.js";
export * from "./vars.js";
