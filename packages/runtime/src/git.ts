import { execFile, execFileSync } from "node:child_process";

// Git as Venom runs it on your behalf (venom-orch's worktrees, docs/venom-orch.md
// "Parallel agents and worktrees"; a host job's diff, docs/remote.md): never a
// program that a repository's, an agent's or the user's configuration names. Hooks, fsmonitor, pagers, external
// diff, textconv, clean/smudge/process filters, merge drivers, signing,
// credential helpers and transports are each turned off on the command line,
// which takes precedence over every configuration file (an includeIf'd one too),
// and the environment is built from nothing, so no GIT_* variable of ours
// reaches it. What an agent itself runs with git is the agent's business.

/** Settings that each name a program git could run, turned off. */
const OFF = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.sshCommand=",
  "core.askPass=",
  "credential.helper=",
  "diff.external=",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "submodule.recurse=false",
  "protocol.allow=never",
  "core.attributesFile=/dev/null",
];

/** Per driver name a configuration defines (filter.NAME.clean, …), the keys that would run it. */
const DRIVER_KEYS: Record<string, readonly string[]> = {
  filter: ["clean", "smudge", "process"],
  diff: ["command", "textconv"],
  merge: ["driver"],
};

/** At most this much of a git command's output is kept. */
const MAX_OUTPUT = 16 * 1024 * 1024;

export class GitError extends Error {}

function environment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/**
 * The driver names every configuration in effect at `cwd` defines, each with its program keys emptied: git then
 * runs no filter, textconv or merge driver that a `.gitattributes` names.
 */
function driversOff(cwd: string): string[] {
  // Nothing when none is defined (exit 1), or outside a repository: nothing to turn off.
  const names = runSync(cwd, [...OFF.flatMap((c) => ["-c", c]), "config", "--name-only", "--get-regexp", "^(filter|diff|merge)\\."]) ?? "";
  const off = new Set<string>();
  for (const key of names.split("\n")) {
    const kind = key.slice(0, key.indexOf("."));
    const driver = key.slice(kind.length + 1, key.lastIndexOf("."));
    for (const program of DRIVER_KEYS[kind] ?? []) if (driver) off.add(`${kind}.${driver}.${program}=`);
    if (kind === "filter" && driver) off.add(`filter.${driver}.required=false`);
  }
  return [...off];
}

function argv(cwd: string, args: readonly string[]): string[] {
  return [...[...OFF, ...driversOff(cwd)].flatMap((c) => ["-c", c]), "--no-pager", ...args];
}

/** Run git in `cwd` with every program it could run turned off; rejects with git's own message when it fails. */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", argv(cwd, args), { cwd, env: environment(), maxBuffer: MAX_OUTPUT, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(new GitError(`git ${args[0]}: ${String(stderr).trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** The whole diff of `cwd`'s repository against the commit `base`, committed and not (untracked files are not in it). */
export function diffSince(cwd: string, base: string): Promise<string> {
  return git(cwd, ["diff", "--no-ext-diff", "--no-textconv", base, "--"]);
}

/** The same, synchronous: for a quick question (rev-parse) asked while an approval summary is written. Null when it fails. */
export function gitSync(cwd: string, args: readonly string[]): string | null {
  return runSync(cwd, argv(cwd, args));
}

function runSync(cwd: string, fullArgv: string[]): string | null {
  try {
    return execFileSync("git", fullArgv, {
      cwd,
      env: environment(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: MAX_OUTPUT,
    });
  } catch {
    return null;
  }
}
