import { type CliApp, loadUserConfigMemo, sectionOf, type VenomHome } from "@venom/runtime/cli";
import type { HostConfig } from "../host-config.js";

/** `[hosts.NAME]` of a job's host in the user's config.toml, read through the memo (no zod at a command's start). */
export async function configuredHost(app: CliApp, home: VenomHome, name: string): Promise<HostConfig> {
  const hosts = sectionOf<Record<string, HostConfig>>(await loadUserConfigMemo(home, app), "hosts");
  const host = Object.hasOwn(hosts, name) ? hosts[name] : undefined;
  if (!host) throw new Error(`the job runs on host ${name}, which your config.toml no longer has ([hosts.${name}])`);
  return host;
}
