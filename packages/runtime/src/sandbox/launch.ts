import { fileURLToPath } from "node:url";
import { landlockAbi, NativeError } from "@venom/native";
import { agentSandbox, type Config } from "../config.js";
import { NO_SANDBOX_NOTICE } from "../notices.js";
import { SandboxUnavailableError } from "./errors.js";
import {
  type Confinement,
  confinementFor,
  describeConfinement,
  ENV_PREFIX,
  PROFILE_VAR,
  type Refusal,
  type SandboxProfile,
} from "./plan.js";
import { type SandboxSpec, sandboxProfileFor } from "./profile.js";

// The built launcher, whether this module runs from dist/ or (under vitest) from src/.
const LAUNCHER = fileURLToPath(new URL("../../dist/sandbox/launcher.js", import.meta.url));

/** What to spawn instead of a program: the same spawn options otherwise (cwd, detached, stdio or pty). */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** The launcher's own environment: the profile, and the program's variables under a prefix nothing else reads. */
  env: Record<string, string>;
}

/** The running kernel's Landlock ABI, or why it has none. */
export function kernelLandlock(): { abi: number } | { refused: string } {
  try {
    return { abi: landlockAbi() };
  } catch (error) {
    if (!(error instanceof NativeError)) throw error;
    if (error.code === "ENOSYS") return { refused: "this kernel has no Landlock (landlock_create_ruleset: ENOSYS)" };
    if (error.code === "EOPNOTSUPP") return { refused: "Landlock is disabled on this kernel (not in the lsm= boot list)" };
    return { refused: `Landlock cannot be queried (${error.code})` };
  }
}

/** What this kernel enforces for `network`, or why it cannot confine at all. */
function kernelConfinement(network: SandboxProfile["network"]): Confinement | Refusal {
  const kernel = kernelLandlock();
  return "refused" in kernel ? kernel : confinementFor(kernel.abi, network);
}

/**
 * `argv` (never through a shell) confined to `profile`: run the returned file
 * and args with the returned env, in place of argv[0] with `env`. The program
 * gets `env` with HOME and TMPDIR set to the profile's private directories.
 * Throws SandboxUnavailableError, before anything starts, when this kernel
 * cannot enforce the profile (the launcher would refuse it too).
 */
export function sandboxedCommand(profile: SandboxProfile, argv: readonly string[], env: NodeJS.ProcessEnv): SandboxedCommand {
  if (argv.length === 0 || argv[0] === "") throw new TypeError("argv must name a program");
  const confinement = kernelConfinement(profile.network);
  if ("refused" in confinement) {
    throw new SandboxUnavailableError(`refused: sandbox.mode is "landlock" but ${confinement.refused}; nothing was started`);
  }
  const launcherEnv: Record<string, string> = { [PROFILE_VAR]: JSON.stringify(profile) };
  for (const [name, value] of Object.entries({ ...env, HOME: profile.home, TMPDIR: profile.tmp })) {
    if (value !== undefined) launcherEnv[ENV_PREFIX + name] = value;
  }
  return { file: process.execPath, args: [LAUNCHER, ...argv], env: launcherEnv };
}

/**
 * The profile a session's config asks for (sandbox.*, narrowed by the
 * agent's own `[agents.NAME] sandbox` when the process is that agent's), or
 * undefined when the mode is "off".
 */
export function sandboxFor(config: Config, spec: Omit<SandboxSpec, "writable" | "network">, agent?: string): SandboxProfile | undefined {
  const sandbox = agentSandbox(config, agent);
  if (sandbox.mode === "off") return undefined;
  return sandboxProfileFor({ ...spec, writable: sandbox.writable, network: sandbox.network });
}

/**
 * The notices hello and status carry: no sandbox, exactly what is confined
 * with which ABI, or why launches are refused; then one for each agent whose
 * own `[agents.NAME] sandbox` confines it more narrowly than that.
 */
export function sandboxNotices(config: Config): string[] {
  const agents = Object.keys(config.agents)
    .map((name) => [name, agentSandbox(config, name)] as const)
    .filter(([, sandbox]) => JSON.stringify(sandbox) !== JSON.stringify(config.sandbox))
    .map(([name, sandbox]) => `agent ${name} ([agents.${name}] sandbox): ${describeSandbox(sandbox)}`);
  return [describeSandbox(config.sandbox), ...agents];
}

function describeSandbox(sandbox: Config["sandbox"]): string {
  if (sandbox.mode === "off") return NO_SANDBOX_NOTICE;
  const confinement = kernelConfinement(sandbox.network);
  return "refused" in confinement
    ? `no sandbox is active and none can be: sandbox.mode is "landlock" but ${confinement.refused}; every process launch is refused`
    : describeConfinement(confinement);
}
