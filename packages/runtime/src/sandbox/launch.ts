import { existsSync, realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { landlockAbi, NativeError, sandboxLauncherPath } from "@venom/native";
import { agentSandbox, type Config } from "../config.js";
import { NO_SANDBOX_NOTICE } from "../notices.js";
import { SandboxUnavailableError } from "./errors.js";
import { type Confinement, confinementFor, describeConfinement, planRuleset, type Refusal, type SandboxProfile } from "./plan.js";
import { recordsExposure, type SandboxSpec, sandboxProfileFor, writingOnly } from "./profile.js";
import { LayersSchema, MAX_LAYERS, MAX_LAYERS_BYTES } from "./profile-schema.js";
import { ENV_PREFIX, encodeRuleset, RULESET_VAR } from "./ruleset-text.js";

// The built Node launcher, whether this module runs from dist/ or (under vitest) from src/.
const NODE_LAUNCHER = fileURLToPath(new URL("../../dist/sandbox/launcher.js", import.meta.url));

/** The program that confines a launch: the C launcher when it was built, else the Node one. */
export interface SandboxLauncher {
  kind: "c" | "node";
  file: string;
  /** What comes before the program's argv on the launcher's command line. */
  args: string[];
}

/**
 * The C launcher (packages/native's build compiles it with the system `cc`)
 * when it is there: it starts in about a millisecond. Without a C compiler at
 * build time, the Node launcher, which adds one Node start-up to every launch.
 */
export function sandboxLauncher(cLauncher = sandboxLauncherPath()): SandboxLauncher {
  return cLauncher ? { kind: "c", file: cLauncher, args: [] } : { kind: "node", file: process.execPath, args: [NODE_LAUNCHER] };
}

function describeLauncher(launcher: SandboxLauncher): string {
  return launcher.kind === "c"
    ? `launcher: venom-sandbox (C, ${launcher.file})`
    : "launcher: Node (no C compiler when Venom was built: every confined launch starts one more Node process)";
}

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
 * `argv` (never through a shell) confined to `profile`, or to every one of
 * `profiles` (each a Landlock layer on the one before, so the process keeps
 * only what all of them allow): run the returned file and args with the
 * returned env, in place of argv[0] with `env`. The program gets `env` with
 * HOME and TMPDIR set to the last profile's private directories. Throws
 * SandboxUnavailableError, before anything starts, when this kernel cannot
 * enforce a profile (the launcher would refuse it too).
 */
export function sandboxedCommand(
  profiles: SandboxProfile | readonly SandboxProfile[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  launcher = sandboxLauncher(),
): SandboxedCommand {
  if (argv.length === 0 || argv[0] === "") throw new TypeError("argv must name a program");
  const layers = Array.isArray(profiles) ? (profiles as readonly SandboxProfile[]) : [profiles as SandboxProfile];
  const innermost = layers.at(-1);
  if (!innermost) throw new TypeError("a sandboxed command needs a profile");
  const kernel = kernelLandlock();
  const plans = layers.map((profile) => {
    const plan = "refused" in kernel ? kernel : planRuleset(profile, kernel.abi);
    if ("refused" in plan)
      throw new SandboxUnavailableError(`refused: sandbox.mode is "landlock" but ${plan.refused}; nothing was started`);
    return plan;
  });
  const launcherEnv: Record<string, string> = { [RULESET_VAR]: encodeRuleset(plans) };
  for (const [name, value] of Object.entries({ ...env, HOME: innermost.home, TMPDIR: innermost.tmp })) {
    if (value !== undefined) launcherEnv[ENV_PREFIX + name] = value;
  }
  return { file: launcher.file, args: [...launcher.args, ...argv], env: launcherEnv };
}

/** Why nothing is started for a session whose confinement cannot be known (SessionState.confinement null). */
export const UNKNOWN_CONFINEMENT =
  "you run under no_new_privs, as every process Venom confines does, but descend from no delegation record, so the confinement you must keep cannot be known";

/** Refuses (SandboxUnavailableError) a launch for a session whose confinement cannot be known. */
export function knownConfinement(inherited: readonly SandboxProfile[] | null): asserts inherited is readonly SandboxProfile[] {
  if (inherited === null) throw new SandboxUnavailableError(`refused: ${UNKNOWN_CONFINEMENT}; nothing was started`);
}

/**
 * The Landlock layers a process started for a session runs under, or
 * undefined for none. First those of the delegation the session acts in
 * (`inherited`, from its recorded ancestor): a process a delegate asks for is
 * confined at least as narrowly as the delegate itself. Then, unless it adds
 * nothing, the profile the config asks for (sandbox.*, narrowed by the
 * agent's own `[agents.NAME] sandbox` when the process is that agent's); under
 * an inherited layer that profile keeps the delegation's private home, the
 * one directory of its own both layers let it write. Last, when the spec
 * names `writableOnly` (pane/new's), a layer that writes only those. Refused
 * (SandboxUnavailableError) when the delegation's layers cannot be known.
 */
export function sandboxFor(
  config: Config,
  { writableOnly, ...spec }: Omit<SandboxSpec, "writable" | "network"> & { writableOnly?: readonly string[] | undefined },
  agent?: string,
  inherited: readonly SandboxProfile[] | null = [],
): SandboxProfile[] | undefined {
  knownConfinement(inherited);
  const sandbox = agentSandbox(config, agent);
  const within = inherited.at(-1);
  const own =
    sandbox.mode === "off"
      ? []
      : [sandboxProfileFor({ ...spec, ...(within ? { home: within.home } : {}), writable: sandbox.writable, network: sandbox.network })];
  const stacked = [...inherited, ...own.filter((profile) => !isDeepStrictEqual(profile, within))];
  if (stacked.length === 0) return undefined;
  const top = stacked.at(-1) as SandboxProfile;
  const layers = writableOnly ? [...stacked, writingOnly(top, writableOnly)] : stacked;
  // The layers go into the process's delegation record, which must stay readable for its descendants' requests.
  if (!LayersSchema.safeParse(layers).success || JSON.stringify(layers).length > MAX_LAYERS_BYTES) {
    throw new SandboxUnavailableError(
      `refused: the process would run under ${layers.length} sandbox layers of ${JSON.stringify(layers).length} bytes, over what a delegation record holds (${MAX_LAYERS} layers, ${MAX_LAYERS_BYTES} bytes); nothing was started`,
    );
  }
  return layers;
}

/**
 * The notices hello and status carry: no sandbox, exactly what is confined
 * with which ABI, or why launches are refused; then one for each agent whose
 * own sandbox (`[agents.NAME] sandbox`: Config.agentSandboxes) confines it more narrowly than that.
 */
export function sandboxNotices(config: Config): string[] {
  const agents = Object.entries(config.agentSandboxes)
    .map(([name, { table }]) => [name, table, agentSandbox(config, name)] as const)
    .filter(([, , sandbox]) => JSON.stringify(sandbox) !== JSON.stringify(config.sandbox))
    .map(([name, table, sandbox]) => `agent ${name} ([${table}] sandbox): ${describeSandbox(sandbox)}`);
  return [describeSandbox(config.sandbox), ...agents];
}

/**
 * Said in hello and status while true, so it is known before the first launch
 * is refused: with any sandbox on, every confined launch of a session in
 * `workspace` is refused when the delegation records lie in the workspace or
 * a sandbox.writable path.
 */
export function recordsNotices(config: Config, workspace: string, records: string): string[] {
  const on = [config.sandbox, ...Object.keys(config.agentSandboxes).map((name) => agentSandbox(config, name))].filter(
    (s) => s.mode !== "off",
  );
  if (on.length === 0) return [];
  const writable = on.flatMap((sandbox) => sandbox.writable).filter((path) => isAbsolute(path) && existsSync(path));
  const exposed = recordsExposure(records, [workspace, ...writable.map((path) => realpathSync(path))]);
  return exposed ? [`every confined launch is refused: ${exposed}`] : [];
}

function describeSandbox(sandbox: Config["sandbox"]): string {
  if (sandbox.mode === "off") return NO_SANDBOX_NOTICE;
  const confinement = kernelConfinement(sandbox.network);
  return "refused" in confinement
    ? `no sandbox is active and none can be: sandbox.mode is "landlock" but ${confinement.refused}; every process launch is refused`
    : `${describeConfinement(confinement)}; ${describeLauncher(sandboxLauncher())}`;
}
