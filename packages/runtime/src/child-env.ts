import { join } from "node:path";
import { childMarkers } from "@venom/proto";
import { privateDir, type VenomHome } from "./home.js";

// The environment of a delegated child (DESIGN.md, "Containment"): nothing that
// selects a Venom instance, no API key, and none of the credential, endpoint
// or state variables any adapter declares, so no agent inherits the user's or
// another agent's credentials; instead a private HOME, XDG directories and
// state directory inside $VENOM_HOME/agents/<agent>, plus the delegation markers.

/** A delegation that would go deeper than agent.max_delegation_depth. */
export class DelegationDepthError extends Error {
  override readonly name = "DelegationDepthError";
}

export interface DelegatedEnvOptions {
  /** The environment to start from (usually process.env); never modified. */
  base: NodeJS.ProcessEnv;
  home: VenomHome;
  agent: string;
  /** The agent's own state variable (e.g. CODEX_HOME), pointed inside its private home. */
  stateVar?: string;
  /** Credential, endpoint and state variables adapters declare; a trailing `*` names a prefix (`GROK_*`). */
  declaredVars: string[];
  /** VENOM_PARENT for the child, e.g. "<instance>/<delegation id>". */
  parent: string;
  parentDepth: number;
  maxDepth: number;
}

const AGENT_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
const PARENT = /^[\x21-\x7e]{1,256}$/;

/** Private directories inside the agent home, relative to it. */
const XDG_DIRS = {
  XDG_CONFIG_HOME: ".config",
  XDG_DATA_HOME: ".local/share",
  XDG_STATE_HOME: ".local/state",
  XDG_CACHE_HOME: ".cache",
} as const;

/**
 * A fresh environment for a delegated child of `agent`. Throws
 * DelegationDepthError, before creating anything, if the child would be
 * deeper than `maxDepth`. The agent's home and its directories are created 0700.
 */
export function delegatedEnv(options: DelegatedEnvOptions): Record<string, string> {
  const { base, home, agent, stateVar, declaredVars, parent, parentDepth, maxDepth } = options;
  if (!Number.isInteger(parentDepth) || parentDepth < 0) throw new TypeError("parentDepth must be a non-negative integer");
  if (!Number.isInteger(maxDepth) || maxDepth < 0) throw new TypeError("maxDepth must be a non-negative integer");
  if (parentDepth + 1 > maxDepth) {
    throw new DelegationDepthError(
      `delegation refused: the child would run at depth ${parentDepth + 1}, over the limit of ${maxDepth} (agent.max_delegation_depth)`,
    );
  }
  if (!AGENT_NAME.test(agent)) throw new TypeError("agent name must match ^[a-z][a-z0-9-]{0,31}$");
  if (!PARENT.test(parent)) throw new TypeError("parent must be 1-256 printable ASCII characters without spaces");
  if (stateVar?.endsWith("*")) throw new TypeError("stateVar must name one variable, not a prefix");
  const removed = stateVar === undefined ? declaredVars : [...declaredVars, stateVar];
  for (const name of removed) {
    if (!VAR_PATTERN.test(name)) throw new TypeError(`not an environment variable name or prefix: ${name.slice(0, 64)}`);
  }

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isStripped(name, removed)) continue;
    env[name] = value;
  }

  const agentHome = join(home.agents, agent);
  privateDir(home.root, { followLink: true });
  privateDir(home.agents);
  privateDir(agentHome);
  env.HOME = agentHome;
  const dirs: [string, string][] = Object.entries(XDG_DIRS);
  if (stateVar !== undefined) dirs.push([stateVar, "state"]);
  for (const [name, relative] of dirs) {
    const dir = join(agentHome, relative);
    privateDir(dir);
    env[name] = dir;
  }
  return { ...env, ...childMarkers(parent, parentDepth) };
}

function isStripped(name: string, declared: readonly string[]): boolean {
  // Case-insensitive where it can only remove more: a selector or key in odd case still goes.
  const upper = name.toUpperCase();
  if (upper.startsWith("VENOM_") || upper.endsWith("_API_KEY")) return true;
  return declared.some((pattern) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}
