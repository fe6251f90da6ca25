import { ErrorCode, ProtocolError, terminalLine } from "@venom/proto";
import type { Adapter, Resolution } from "../adapters.js";
import type { OrchContext } from "../context.js";
import { type HostConfig, hostsSection } from "../host-config.js";

/** What of the agent tool's input decides where it runs. */
interface WhereInput {
  host?: string | undefined;
  cwd?: string | undefined;
  worktree?: boolean | undefined;
  branch?: string | undefined;
}

const invalid = (field: string, message: string) =>
  new ProtocolError(ErrorCode.InvalidParams, `invalid params: arguments.${field}: ${message}`, { path: ["arguments", field] });

/**
 * The `[hosts.NAME]` a call names, or null for this machine; a ProtocolError naming the field for a host the user's
 * configuration does not have, or a setting that means a directory of this machine (cwd, a worktree).
 */
export function hostOf(input: WhereInput, context: OrchContext): { name: string; config: HostConfig } | null {
  if (input.host === undefined) return null;
  const hosts = hostsSection.read(context.state.config);
  const config = Object.hasOwn(hosts, input.host) ? hosts[input.host] : undefined;
  if (!config) {
    const known = Object.keys(hosts);
    throw invalid(
      "host",
      `no host "${terminalLine(input.host, 64)}" in your configuration ([hosts.NAME] in $VENOM_HOME/config.toml); ${known.length > 0 ? `hosts: ${known.join(", ")}` : "none is configured"}`,
    );
  }
  if (input.cwd !== undefined) {
    throw invalid("cwd", `a directory of this machine: the job on ${input.host} runs in its workspace ([hosts.${input.host}] workspace)`);
  }
  if (input.worktree === true || input.branch !== undefined) {
    throw invalid(input.worktree === true ? "worktree" : "branch", `a worktree is made in this machine's checkout: not with host`);
  }
  // A delegate's confinement is a record of this machine, which no other host can apply (docs/remote.md, "Who is trusted").
  // Any delegate, by evidence or only by its claim (which may have no record at all).
  if (context.state.principal.kind !== "owner" || context.launcher.delegation !== null) {
    throw new ProtocolError(ErrorCode.OwnerRequired, `refused: only the owner runs agents on other hosts; this session is a delegate`);
  }
  return { name: input.host, config };
}

/**
 * How the agent starts on a host: its program as configured, found there (a name on that host's PATH, or the path as
 * given); nothing of this machine's files is looked at. ACP only when the agent says `transport = "acp"`: whether its
 * ACP entry point is installed there cannot be seen from here.
 */
export function remoteResolution(adapter: Adapter): Resolution & { offered: true } {
  if (adapter.transport === "acp" && adapter.acp) return { offered: true, argv0: [adapter.acp.executable], transport: "acp" };
  return { offered: true, argv0: [adapter.executable], transport: "cli" };
}
