/** The key of the `[agents]` section (agentsSection, in "@venom/agents/config"). */
export const AGENTS_SECTION = "agents";
