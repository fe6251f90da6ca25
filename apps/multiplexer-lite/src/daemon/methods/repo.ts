import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ErrorCode, ProtocolError, terminalLine } from "@venom/proto";
import { diffSince, git } from "@venom/runtime/git";
import { paneMethod } from "./define.js";

// The repository of a directory on this machine, for another machine's venom-orch whose job runs here: the commit
// its job started from, and the job's diff since (docs/remote.md, "Attach, cancel, diff"). Owner-only (proto's
// PaneMethods), and git runs with every program it could run turned off (runtime's git.ts): a repository's hooks,
// filters and diff drivers never run.

/** A diff reply stays inside the 1 MiB frame, whatever JSON escaping adds. */
const DIFF_REPLY_BYTES = 768 * 1024;
/** How many untracked files a reply names (proto's RepoDiffResultSchema), in at most this much of it. */
const UNTRACKED_LISTED = 100;
const UNTRACKED_REPLY_BYTES = 128 * 1024;

function directory(cwd: string): string {
  if (!isAbsolute(cwd)) throw new ProtocolError(ErrorCode.InvalidParams, "invalid params: cwd: must be an absolute path");
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: cwd: no directory ${terminalLine(cwd, 256)}`);
  return cwd;
}

export const repoHeadMethod = () =>
  paneMethod("repo/head", async (params) => {
    const head = await git(directory(params.cwd), ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).catch(() => "");
    return { commit: head.trim() || null };
  });

export const repoDiffMethod = () =>
  paneMethod("repo/diff", async (params) => {
    const cwd = directory(params.cwd);
    const diff = await diffSince(cwd, params.base).catch((error: Error) => {
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${terminalLine(error.message, 600)}`);
    });
    const others = await git(cwd, ["ls-files", "-z", "--others", "--exclude-standard"]);
    return { ...firstLines(diff, DIFF_REPLY_BYTES), untracked: firstNames(others.split("\0").filter(Boolean)) };
  });

/** The first untracked files' names, as many as the reply has room for beside the diff. */
function firstNames(names: string[]): string[] {
  let used = 0;
  const kept: string[] = [];
  for (const name of names.slice(0, UNTRACKED_LISTED)) {
    used += Buffer.byteLength(JSON.stringify(name)) + 1;
    if (name.length > 4096 || used > UNTRACKED_REPLY_BYTES) break;
    kept.push(name);
  }
  return kept;
}

/** The diff's first whole lines whose JSON fits in `bytes`: all of it, or as much as fits and `cut`. */
function firstLines(diff: string, bytes: number): { diff: string; cut: boolean } {
  if (Buffer.byteLength(JSON.stringify(diff)) <= bytes) return { diff, cut: false };
  let used = 0;
  let end = 0;
  for (let next = diff.indexOf("\n"); next !== -1; next = diff.indexOf("\n", end)) {
    used += Buffer.byteLength(JSON.stringify(diff.slice(end, next + 1))) - 2;
    if (used > bytes) break;
    end = next + 1;
  }
  return { diff: diff.slice(0, end), cut: true };
}
