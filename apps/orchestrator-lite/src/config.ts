import { agentsSection } from "@venom/agents/config";

/** What venom-orch validates of config.toml beside the runtime's sections: the agents it launches. */
export const orchSections = [agentsSection];
