import { join } from "node:path";
import { childMarkers, isSecretShaped, matchesAny } from "@venom/proto";
import { privateDir, type VenomHome } from "./home.js";
import { privateDirBeneath } from "./private-dir-beneath.js";

// The environment of a delegated child (conformance/spec/design.md, "Delegation across daemons"):
// an allow-list, not a deny-list. A documented base set, the names the launcher
// passes on purpose, VENOM_HOME (so the child reaches this instance's daemons, as
// a delegate), a private HOME, XDG directories and state directory inside
// $VENOM_HOME/agents/<agent>, and the markers. A secret-shaped or declared name never
// passes, even when asked for, so no agent inherits the user's or another agent's
// credentials. Which names the agents declare is theirs to say (@venom/agents), not the runtime's.

/** A delegation that would go deeper than agent.max_delegation_depth. */
export class DelegationDepthError extends Error {
  override readonly name = "DelegationDepthError";
}

export interface DelegatedEnvOptions {
  /** Where the base set and passed names are taken from (usually process.env); never modified. */
  base: NodeJS.ProcessEnv;
  /** Names beyond the base set to take from `base` (an adapter's env_pass). */
  pass?: readonly string[];
  /** Values the launcher sets (a pane's env); the same names are refused as from `base`. */
  extra?: Readonly<Record<string, string>>;
  /**
   * Values the user wrote for this agent in their own configuration (`[agents.NAME.env]`), given as written, a
   * declared endpoint variable included: the configuration refused credential-like, start-up and Venom-set names.
   */
  own?: Readonly<Record<string, string>>;
  home: VenomHome;
  agent: string;
  /** The agent's own state variable (e.g. CODEX_HOME), pointed inside its private home. */
  stateVar?: string;
  /** Credential, endpoint and state variables the agents declare; a trailing `*` names a prefix (`GROK_*`). Never passed (isSecretShaped). */
  declaredVars: readonly string[];
  /** VENOM_PARENT for the child, e.g. "<instance>/<delegation id>". */
  parent: string;
  parentDepth: number;
  maxDepth: number;
}

const AGENT_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
const PARENT = /^[\x21-\x7e]{1,256}$/;

/** What every delegated child gets from the launcher's environment (docs/venom-orch.md, "What a delegated agent gets"). */
export const BASE_ENV = ["PATH", "LANG", "LC_*", "TERM", "TZ", "USER", "LOGNAME", "SHELL"] as const;

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
  const refused = stateVar === undefined ? declaredVars : [...declaredVars, stateVar];
  for (const name of refused) {
    if (!VAR_PATTERN.test(name)) throw new TypeError(`not an environment variable name or prefix: ${name.slice(0, 64)}`);
  }
  const allowed = (name: string) => !isSecretShaped(name, refused);
  const wanted = [...BASE_ENV, ...(options.pass ?? [])];

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && matchesAny(name, wanted) && allowed(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (allowed(name)) env[name] = value;
  }
  Object.assign(env, options.own);

  const agentHome = join(home.agents, agent);
  privateDir(home.root, { followLink: true });
  privateDir(home.agents);
  privateDir(agentHome);
  env.HOME = agentHome;
  env.VENOM_HOME = home.root;
  const dirs: [string, string][] = Object.entries(XDG_DIRS);
  if (stateVar !== undefined) dirs.push([stateVar, "state"]);
  for (const [name, relative] of dirs) {
    // The agent writes its home: a component of `relative` may be a symlink it planted.
    privateDirBeneath(agentHome, relative);
    env[name] = join(agentHome, relative);
  }
  return { ...env, ...childMarkers(parent, parentDepth) };
}
