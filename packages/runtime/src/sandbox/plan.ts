import { LANDLOCK_FS, LANDLOCK_NET, LANDLOCK_SCOPE } from "@venom/native";
import { isWithin } from "../path-within.js";
import type { SandboxProfile } from "./profile-schema.js";

export type { SandboxProfile };

// The Landlock ruleset for a profile on a kernel of a given ABI, as pure data:
// the daemon plans before it starts anything (to refuse early and to say in
// its notices exactly what is enforced) and hands the plan to the launcher
// (ruleset-text.ts), which only applies it. Nothing here touches the system.

export interface PathRule {
  path: string;
  access: bigint;
}

/** What a kernel of a given Landlock ABI enforces for a profile's network setting. */
export interface Confinement {
  abi: number;
  handled: { fs: bigint; net: bigint; scoped: bigint };
  /** Protections this kernel's ABI lacks, each named with the ABI that brings it; reported, never assumed. */
  unsupported: string[];
}

export interface RulesetPlan extends Confinement {
  rules: PathRule[];
}

/** Why a kernel cannot confine as configured. */
export interface Refusal {
  refused: string;
}

/**
 * Below ABI 3 truncate(2) is not controlled, so a confined process could
 * still empty any of your files: too weak to call confinement.
 */
export const MINIMUM_ABI = 3;
const NETWORK_ABI = LANDLOCK_NET.CONNECT_TCP.abi;

type Right = { bit: bigint; abi: number };
const known = (rights: Record<string, Right>, abi: number) =>
  Object.values(rights)
    .filter((right) => right.abi <= abi)
    .reduce((mask, right) => mask | right.bit, 0n);

/** The rights of a path rule on a file (not a directory): the kernel refuses directory-only rights there. */
export function fileRights(abi: number): bigint {
  return Object.values(LANDLOCK_FS)
    .filter((right) => right.fileOnly && right.abi <= abi)
    .reduce((mask, right) => mask | right.bit, 0n);
}

/** What a kernel of Landlock `abi` enforces with `network`, or why it cannot confine at all. */
export function confinementFor(abi: number, network: SandboxProfile["network"]): Confinement | Refusal {
  if (abi < MINIMUM_ABI) {
    return { refused: `the kernel's Landlock ABI ${abi} cannot control truncate(2); confinement needs ABI ${MINIMUM_ABI} or later` };
  }
  if (network === "none" && abi < NETWORK_ABI) {
    return {
      refused: `sandbox.network = "none" needs Landlock ABI ${NETWORK_ABI} (TCP bind and connect rules); this kernel has ABI ${abi}`,
    };
  }
  const { IOCTL_DEV } = LANDLOCK_FS;
  const unsupported = [
    ...(abi < IOCTL_DEV.abi ? [`device ioctl control (LANDLOCK_ACCESS_FS_IOCTL_DEV, ABI ${IOCTL_DEV.abi})`] : []),
    ...Object.entries(LANDLOCK_SCOPE)
      .filter(([, scope]) => scope.abi > abi)
      .map(([name, scope]) => `${name.toLowerCase().replaceAll("_", " ")} scoping (LANDLOCK_SCOPE_${name}, ABI ${scope.abi})`),
  ];
  return {
    abi,
    handled: { fs: known(LANDLOCK_FS, abi), net: network === "none" ? known(LANDLOCK_NET, abi) : 0n, scoped: known(LANDLOCK_SCOPE, abi) },
    unsupported,
  };
}

/** The ruleset for `profile` on a kernel of Landlock `abi`, or why that kernel cannot enforce it. */
export function planRuleset(profile: SandboxProfile, abi: number): RulesetPlan | Refusal {
  const confinement = confinementFor(abi, profile.network);
  if ("refused" in confinement) return confinement;
  const { fs } = confinement.handled;
  const { EXECUTE, READ_FILE, READ_DIR, WRITE_FILE, TRUNCATE, IOCTL_DEV, MAKE_CHAR, MAKE_BLOCK } = LANDLOCK_FS;
  const device = (WRITE_FILE.bit | READ_FILE.bit | READ_DIR.bit | TRUNCATE.bit | IOCTL_DEV.bit) & fs;
  // Every right but making device nodes: a process running as root could make one for a disk or a
  // terminal in its workspace and open the device through it, where no rule lets it open the device.
  const write = fs & ~(MAKE_CHAR.bit | MAKE_BLOCK.bit);
  const writable = [...profile.writable, profile.home, profile.tmp];
  const rules: PathRule[] = [
    ...profile.readExec.map((path) => ({ path, access: EXECUTE.bit | READ_FILE.bit | READ_DIR.bit })),
    ...profile.read.map((path) => ({ path, access: READ_FILE.bit | READ_DIR.bit })),
    ...writable.map((path) => ({ path, access: write })),
    ...profile.devices.map((path) => ({ path, access: device })),
  ];
  // A launcher opens each rule's path again, following symlinks. A path below
  // one the process may write (its temp dir in its home, a tool dir in the
  // workspace) is one it could have replaced with a symlink by then, and the
  // rule would grant its rights to wherever the link leads; it adds no right
  // the writable path does not already give, so it is left out.
  const beneathWritable = (path: string) => writable.some((root) => root !== path && isWithin(root, path));
  return { ...confinement, rules: rules.filter((rule) => !beneathWritable(rule.path)) };
}

/** One sentence for notices and status: exactly what is enforced, and what this kernel cannot. */
export function describeConfinement(confinement: Confinement): string {
  const scoped = confinement.handled.scoped === 0n ? "" : "; signals and abstract Unix sockets cannot reach processes outside the sandbox";
  const lacking = confinement.unsupported.length > 0 ? `; not enforced, the kernel lacks: ${confinement.unsupported.join(", ")}` : "";
  const network = confinement.handled.net === 0n ? "not restricted" : "TCP bind and connect refused";
  return (
    `sandbox active (Landlock ABI ${confinement.abi}): every process Venom starts reads and runs only the system and tool directories, /proc and the workspace, ` +
    `writes only the workspace, its private home and temp dir and sandbox.writable, and cannot read the rest of your home; ` +
    `network: ${network}${scoped}; no_new_privs${lacking}`
  );
}
