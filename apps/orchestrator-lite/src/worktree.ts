import { appendFileSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { diffSince, git } from "@venom/runtime/git";

// A git worktree per job (docs/venom-orch.md, "Parallel agents and worktrees"):
// made from the current HEAD of the repository holding the job's cwd, with a
// branch of its own, at .venom/worktrees/LABEL inside the workspace; what the
// job changed is read back from it, merged into the main worktree's branch
// when the person says so, and removed with its branch. Every git command is
// runtime's git.ts's: none runs a program the repository or an agent configured.
//
// The worktree's HEAD is detached at the branch, and venom-orch moves the
// branch to it (followBranch): a job commits without writing any ref, so a
// confined one is granted no ref at all (worktreeWritable). Git writes a ref
// by renaming a lock file beside it, and Landlock grants directories, so a
// grant of one branch would be a grant of its whole directory.

/** Where the worktrees are, relative to the workspace; the repository ignores it (info/exclude). */
export const WORKTREES_DIR = ".venom/worktrees";

export interface Worktree {
  /** The main worktree's root (the repository holding the cwd). */
  repo: string;
  /** The commit it was made from. */
  base: string;
  path: string;
  branch: string;
}

/** What the job did: its commits on the branch and the files changed against the base, committed and not. */
export interface WorktreeChanges {
  commits: string[];
  stat: string;
  untracked: string[];
}

const MAX_COMMITS = 200;

export async function createWorktree(options: { cwd: string; workspace: string; label: string; branch?: string | undefined }): Promise<{
  worktree: Worktree;
  cwd: string;
}> {
  const repo = (await git(options.cwd, ["rev-parse", "--show-toplevel"])).trim();
  const base = (await git(repo, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  const path = join(options.workspace, WORKTREES_DIR, options.label);
  const branch = options.branch ?? `venom/${options.label}`;
  await git(repo, ["check-ref-format", "--branch", branch]);
  await ignoreWorktrees(repo);
  await git(repo, ["worktree", "add", "--quiet", "-b", branch, "--", path, base]);
  await git(path, ["checkout", "--quiet", "--detach"]);
  // The agent runs where it was asked to, within the worktree.
  const inside = relative(repo, options.cwd);
  return { worktree: { repo, base, path, branch }, cwd: inside.startsWith("..") ? path : resolve(path, inside) };
}

/**
 * What an agent confined in the worktree may write (pane/new's writableOnly): the worktree, its own entry in the git
 * directory (its HEAD, index and reflog: it commits on its detached HEAD) and the object store. It writes no ref, so
 * neither the main checkout nor any branch, its own included: venom-orch moves that (followBranch).
 */
export async function worktreeWritable(worktree: Worktree): Promise<string[]> {
  const gitDir = resolve(worktree.path, (await git(worktree.path, ["rev-parse", "--git-dir"])).trim());
  const common = resolve(worktree.path, (await git(worktree.path, ["rev-parse", "--git-common-dir"])).trim());
  return [worktree.path, gitDir, join(common, "objects")];
}

/**
 * The job's branch moved to its worktree's HEAD, where the job committed. `branch -f` refuses while the branch is
 * checked out in another worktree (the person's own checkout of it is never moved under them).
 */
export async function followBranch(worktree: Worktree): Promise<void> {
  // A worktree made with its branch checked out (before HEAD was detached) moves the branch itself.
  const on = (await git(worktree.path, ["symbolic-ref", "--quiet", "HEAD"]).catch(() => "")).trim();
  if (on === `refs/heads/${worktree.branch}`) return;
  const head = (await git(worktree.path, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  await git(worktree.repo, ["branch", "--force", "--no-track", worktree.branch, head]);
}

/** `.venom/worktrees/` in the repository's info/exclude, once: never committed, never shown as untracked. */
async function ignoreWorktrees(repo: string): Promise<void> {
  const common = resolve(repo, (await git(repo, ["rev-parse", "--git-common-dir"])).trim());
  const exclude = join(common, "info", "exclude");
  let text = "";
  try {
    text = readFileSync(exclude, "utf8");
  } catch {
    // No exclude file yet: git made info/ with the repository; appending creates the file.
  }
  if (text.split("\n").includes(`/${WORKTREES_DIR}/`)) return;
  appendFileSync(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}/${WORKTREES_DIR}/\n`);
}

export async function worktreeChanges(worktree: Worktree): Promise<WorktreeChanges> {
  const commits = (await git(worktree.path, ["log", "--format=%h %s", `--max-count=${MAX_COMMITS}`, `${worktree.base}..HEAD`]))
    .split("\n")
    .filter(Boolean);
  const stat = await git(worktree.path, ["diff", "--no-ext-diff", "--no-textconv", "--stat", worktree.base]);
  const untracked = (await git(worktree.path, ["ls-files", "--others", "--exclude-standard"])).split("\n").filter(Boolean);
  return { commits, stat: stat.trimEnd(), untracked };
}

/** The whole diff against the base, committed and not (untracked files are listed by worktreeChanges). */
export function worktreeDiff(worktree: Worktree): Promise<string> {
  return diffSince(worktree.path, worktree.base);
}

/** The worktree's uncommitted work (new files too) committed on its branch, so a merge takes it; the commit before, when it did. */
async function commitLeftovers(worktree: Worktree, label: string): Promise<string | null> {
  if ((await git(worktree.path, ["status", "--porcelain"])).trim() === "") return null;
  const before = (await git(worktree.path, ["rev-parse", "HEAD"])).trim();
  await git(worktree.path, ["add", "--all"]);
  await git(worktree.path, ["commit", "--quiet", "--no-verify", "-m", `venom-orch: the uncommitted work of ${label}`]);
  return before;
}

/**
 * Merge the job's branch, with its uncommitted work committed on it first, into the branch checked out in the main
 * worktree: fast-forward when it can, else a merge commit. A dirty main worktree stops first; a conflict is aborted
 * and the commit of the uncommitted work undone, leaving everything as it was. Says what it did.
 */
export async function mergeWorktree(worktree: Worktree, label: string): Promise<string> {
  const dirty = (await git(worktree.repo, ["status", "--porcelain", "--untracked-files=no"])).trim();
  if (dirty) throw new Error(`the main worktree ${worktree.repo} has uncommitted changes; commit or stash them first; nothing was merged`);
  const into = (await git(worktree.repo, ["symbolic-ref", "--quiet", "--short", "HEAD"]).catch(() => "")).trim();
  if (!into) throw new Error(`the main worktree ${worktree.repo} has no branch checked out (detached HEAD); nothing was merged`);
  const before = (await git(worktree.repo, ["rev-parse", "HEAD"])).trim();
  const uncommitted = await commitLeftovers(worktree, label);
  await followBranch(worktree);
  try {
    await git(worktree.repo, ["merge", "--no-edit", "--no-stat", "--quiet", worktree.branch]);
  } catch (error) {
    await git(worktree.repo, ["merge", "--abort"]).catch(() => undefined);
    if (uncommitted) {
      await git(worktree.path, ["reset", "--quiet", "--soft", uncommitted]).catch(() => undefined);
      await followBranch(worktree).catch(() => undefined);
    }
    throw new Error(`${worktree.branch} does not merge cleanly into ${into}; everything is as it was: ${(error as Error).message}`);
  }
  const after = (await git(worktree.repo, ["rev-parse", "HEAD"])).trim();
  const fastForward = (await git(worktree.repo, ["rev-parse", "HEAD^@"])).trim().split("\n").length === 1 && after !== before;
  const committed = uncommitted ? `committed ${label}'s uncommitted work on ${worktree.branch}; ` : "";
  return after === before
    ? `${worktree.branch} had nothing to merge into ${into}`
    : `${committed}${fastForward ? "fast-forwarded" : "merged"} ${worktree.branch} into ${into} (${after.slice(0, 12)})`;
}

/** Remove the worktree and its branch (its commits with it, merged or not); uncommitted changes refuse unless `force`. */
export async function removeWorktree(worktree: Worktree, force: boolean): Promise<void> {
  if (!force) {
    const dirty = (await git(worktree.path, ["status", "--porcelain"]).catch(() => "")).trim();
    if (dirty) throw new Error(`${worktree.path} has uncommitted changes; --force removes them too`);
  }
  await git(worktree.repo, ["worktree", "remove", ...(force ? ["--force"] : []), "--", worktree.path]);
  await git(worktree.repo, ["branch", "-D", "--", worktree.branch]);
}
