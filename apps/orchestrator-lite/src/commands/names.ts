import { type CliApp, connectCli, loadUserConfigMemo, type VenomHome } from "@venom/runtime/cli";
import { adapters } from "../adapters.js";
import type { JobRecord } from "../jobs.js";

// What the shell's TAB offers (runtime's cli/completion.ts): cheap lookups that never start a daemon.

/** The agents the configuration names (offered or not: `run` says why not). */
export async function agentNames(app: CliApp, home: VenomHome): Promise<string[]> {
  return adapters(await loadUserConfigMemo(home, app)).map((adapter) => adapter.name);
}

/** The labels of the jobs the running daemon shows you; none when it is not running. */
export async function jobNames(app: CliApp, home: VenomHome): Promise<string[]> {
  const client = await connectCli(app, home).catch(() => undefined);
  try {
    const jobs = client ? ((await client.callTool("agent_jobs", {})).data?.jobs as JobRecord[] | undefined) : undefined;
    return (jobs ?? []).map((job) => job.name);
  } finally {
    client?.close();
  }
}
