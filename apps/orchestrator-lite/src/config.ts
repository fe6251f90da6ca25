import { agentsSection } from "@venom/agents/config";
import { notifySection } from "./notify.js";

/** What venom-orch validates of config.toml beside the runtime's sections: the agents it launches, and how it notifies you. */
export const orchSections = [agentsSection, notifySection];
