import { sectionOf } from "@venom/runtime/cli";
import type { Config } from "@venom/runtime/config";
import type { AgentConfig } from "./config.js";
import { AGENTS_SECTION } from "./section.js";

/** `[agents]` as the program loaded it (with agentsSection registered); read without zod. */
export function agentsOf(config: Config): Record<string, AgentConfig> {
  return sectionOf(config, AGENTS_SECTION);
}
