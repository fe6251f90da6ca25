import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";
import { privateDir } from "../home.js";
import { isWithin } from "../path-within.js";
import { privateDirBeneath } from "../private-dir-beneath.js";
import { SandboxUnavailableError } from "./errors.js";
import type { SandboxProfile } from "./plan.js";
import { resolveUnwritable } from "./resolve-unwritable.js";

/** The system, read and executed by every confined process; the ones missing on this machine are left out. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];
/**
 * Devices a program expects to open: the bit buckets, randomness and its own terminal. Not /dev/pts, where
 * every terminal of yours is: so /dev/ptmx makes a new pty whose other end cannot be opened.
 */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"];

export interface SandboxSpec {
  /** The session's workspace (canonical): read, run and write. */
  workspace: string;
  /** Where the process starts; it must lie in the workspace or a writable path. */
  cwd: string;
  /** The process's private home, created 0700; its temp dir is `tmp` inside it. */
  home: string;
  /**
   * The delegation records' directory: what a confined caller's descendants
   * are confined by is read from it, so no profile may let the process write it.
   */
  records: string;
  /** sandbox.writable: extra paths with every right (absolute; each must exist). */
  writable: readonly string[];
  network: SandboxProfile["network"];
  /** PATH of the process: its directories (outside your home) are tool install dirs to read and run. */
  path: string | undefined;
  /** Your real home, of which nothing is granted unless listed in `writable`. Default: os.homedir(). */
  realHome?: string;
}

/**
 * The profile of one confined process (docs/security-model.md, "Confinement (opt-in)"): read and execute the system,
 * Node's install dir, the tool dirs on PATH and the workspace; write only the
 * workspace, the private home and temp dir and what sandbox.writable lists;
 * devices as needed; nothing of the real home. Creates the private home and
 * temp dir. Throws SandboxUnavailableError for a writable path that does not
 * exist or a cwd the profile would not let the process use.
 */
export function sandboxProfileFor(spec: SandboxSpec): SandboxProfile {
  const realHome = canonical(spec.realHome ?? homedir());
  privateDir(spec.home);
  const home = realpathSync(spec.home);
  // Not resolved: the process may write its home, so by the launch its tmp could be a symlink leading out.
  const tmp = join(home, "tmp");
  privateDirBeneath(home, "tmp");
  // Paths resolved with no directory the process may write on the way (resolve-unwritable.ts): one beneath
  // the workspace or the home is left out, as it adds no right and a confined process could have made it a symlink.
  const writable = spec.writable.flatMap((path) => {
    if (!isAbsolute(path) || !existsSync(path)) {
      throw new SandboxUnavailableError(`sandbox.writable: ${JSON.stringify(path)} is not an existing absolute path`);
    }
    return resolveUnwritable(path, [spec.workspace, home]) ?? [];
  });
  const exposed = recordsExposure(spec.records, [spec.workspace, ...writable, home]);
  if (exposed) throw new SandboxUnavailableError(`refused: ${exposed}`);
  const cwd = canonical(spec.cwd);
  if (![spec.workspace, ...writable].some((root) => isWithin(root, cwd))) {
    throw new SandboxUnavailableError("the process would start outside the workspace and sandbox.writable");
  }
  // Node's own install dir is granted even inside your home (nvm), unless it is your home or holds it.
  const node = nodeInstallDir();
  const pathDirs = (spec.path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .flatMap((dir) => resolveUnwritable(dir, [spec.workspace, home, ...writable]) ?? [])
    .filter((dir) => !isWithin(realHome, dir) && !isWithin(dir, realHome));
  const tools = [...(isWithin(node, realHome) ? [] : [node]), ...pathDirs];
  return {
    readExec: unique([...SYSTEM_DIRS.filter(existsSync), ...tools, spec.workspace]),
    read: ["/proc"],
    writable: unique([spec.workspace, ...writable]),
    devices: DEVICES.filter(existsSync),
    network: spec.network,
    home,
    tmp,
  };
}

/**
 * `top` writing only `paths` (and its private home and temp dir), reading and running as before: stacked on `top`,
 * a layer that narrows where a process writes and grants nothing. Throws SandboxUnavailableError for a path that is
 * not an existing absolute one.
 */
export function writingOnly(top: SandboxProfile, paths: readonly string[]): SandboxProfile {
  const writable = paths.map((path) => {
    if (!isAbsolute(path) || !existsSync(path)) {
      throw new SandboxUnavailableError(`writableOnly: ${JSON.stringify(path)} is not an existing absolute path; nothing was started`);
    }
    return realpathSync(path);
  });
  return { ...top, writable: unique(writable) };
}

/**
 * Why no process may be confined with write access to `roots` (canonical):
 * one of them holds the delegation records, which say what a confined
 * caller's descendants are confined by, so the process could rewrite its own
 * confinement. Undefined when none does.
 */
export function recordsExposure(records: string, roots: readonly string[]): string | undefined {
  // Its parent (state/) exists while a daemon runs; the records directory itself may not yet.
  const canonicalRecords = join(canonical(dirname(records)), basename(records));
  const root = roots.find((root) => isWithin(root, canonicalRecords));
  if (root === undefined) return undefined;
  return `the delegation records (${canonicalRecords}) lie in ${root}, which a confined process could write, so it could rewrite its own confinement; keep VENOM_HOME outside the workspace and sandbox.writable`;
}

/** Node's install prefix (`<prefix>/bin/node`), so a confined process can run node and its global tools. */
function nodeInstallDir(): string {
  return dirname(dirname(realpathSync(process.execPath)));
}

function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : path;
}

const unique = (paths: string[]) => [...new Set(paths)];
