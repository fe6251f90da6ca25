import { agentsSection } from "@venom/agents/config";
import { hostsSection } from "./host-config.js";
import { notifySection } from "./notify.js";

/** What venom-orch validates of config.toml beside the runtime's sections: the agents it launches, the hosts it reaches, and how it notifies you. */
export const orchSections = [agentsSection, hostsSection, notifySection];
