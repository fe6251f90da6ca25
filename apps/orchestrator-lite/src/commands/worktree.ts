import { isatty } from "node:tty";
import { terminalLine, terminalSafe } from "@venom/proto";
import { type CliApp, type Command, Exit, UsageError, type VenomHome } from "@venom/runtime/cli";
import type { JobRecord } from "../jobs.js";
import { VERSION } from "../version.js";
import { withOrch } from "./client.js";
import { configuredHost } from "./hosts.js";
import { jobNames } from "./names.js";

// `venom-orch diff | merge | clean JOB` (docs/venom-orch.md, "Parallel agents and worktrees"): a worktree job's
// changes shown, merged into the main worktree's branch, or removed with its branch. A host's job is diffed there
// (docs/remote.md).

const complete =
  (app: CliApp) => async (home: Parameters<NonNullable<Command["complete"]>>[0], at: { flag: string } | { argument: number }) =>
    "argument" in at && at.argument === 0 ? jobNames(app, home) : [];

function oneJob(positionals: readonly string[]): string {
  const [job, ...extra] = positionals;
  if (!job || extra.length > 0) throw new UsageError("expected one job id or label");
  return job;
}

/** `diff JOB`: the whole diff against the job's base, committed and not, through a pager on a terminal. */
export function diffCommand(app: CliApp): Command {
  return {
    name: "diff",
    summary: "a worktree or host job's changes against its base, committed and not (paged on a terminal)",
    usage: "diff JOB",
    management: false,
    complete: complete(app),
    async execute({ home, io, positionals }) {
      const target = oneJob(positionals);
      const jobs = await withOrch(app, home, async (client) => (await client.callTool("agent_jobs", {})).data?.jobs as JobRecord[]);
      const job = (jobs ?? []).find((j) => j.id === target || j.name === target);
      if (!job) throw new Error(`no job "${target}" that you may see`);
      const diff = job.host !== null ? await hostDiff(app, home, job, job.host) : await worktreeDiffOf(job);
      // Into a pipe as it is (`| git apply` takes it whole); onto a terminal with what the repository's text could do
      // there (conceal a line, set a title) escaped: an agent or a host wrote it, and you review it to merge it.
      if (!isatty(1)) {
        process.stdout.write(diff);
        return Exit.ok;
      }
      const shown = terminalSafe(diff);
      const { spawn } = await import("node:child_process");
      // Our pager, never one a configuration names: less quits when it fits.
      const pager = spawn("less", ["-FX"], { stdio: ["pipe", "inherit", "inherit"] });
      pager.on("error", () => io.out(shown));
      pager.stdin.on("error", () => undefined);
      pager.stdin.end(shown);
      return new Promise<number>((resolve) => pager.once("close", () => resolve(Exit.ok)));
    },
  };
}

async function worktreeDiffOf(job: JobRecord): Promise<string> {
  if (!job.worktree || job.worktree.removed) throw new Error(`${job.name} has no worktree to diff`);
  // Loaded here: git is not worth every command's start time.
  const { worktreeDiff } = await import("../worktree.js");
  return worktreeDiff(job.worktree);
}

/**
 * A host's job: what it changed in that host's workspace since it started, asked of the host's venom-mux through a
 * new bridge, as `attach` does (docs/remote.md, "Attach, cancel, diff"); the diff goes out as a local one does.
 */
async function hostDiff(app: CliApp, home: VenomHome, job: JobRecord, host: string): Promise<string> {
  const base = job.hostBase;
  if (base === null)
    throw new Error(`${job.name} ran on ${host} outside a git repository (${terminalLine(job.cwd, 256)}): nothing to diff`);
  const { dialHost } = await import("../host-link.js");
  const link = await dialHost(host, await configuredHost(app, home, host), { client: { name: app.program, version: VERSION } });
  try {
    const { diff, cut, untracked } = await link.client.request("repo/diff", { cwd: job.cwd, base });
    const said = (line: string) => process.stderr.write(`${app.program}: ${line}\n`);
    if (cut)
      said(
        `the diff is longer than one reply carries: its first part is shown (all of it on ${host}: git -C ${terminalLine(job.cwd, 256)} diff ${base})`,
      );
    // A new file the agent made is untracked there, so in no diff: named, as `jobs --json` names a worktree's.
    if (untracked.length > 0) said(`untracked on ${host}, not in the diff: ${untracked.map((name) => terminalLine(name, 256)).join(", ")}`);
    return diff;
  } finally {
    link.close();
  }
}

/** `merge JOB` / `clean JOB [--force]`: through the agent_merge and agent_clean tools, asked like any write (--yes approves). */
export function worktreeToolCommand(app: CliApp, verb: "merge" | "clean"): Command {
  return {
    name: verb,
    summary:
      verb === "merge"
        ? "merge a worktree job's branch into the main worktree's branch (asks y/N; --yes approves)"
        : "remove a worktree job's worktree and branch (asks y/N; --yes approves; --force with uncommitted changes)",
    usage: verb === "merge" ? "merge JOB [--yes]" : "clean JOB [--force] [--yes]",
    management: false,
    complete: complete(app),
    options: { yes: { type: "boolean" }, ...(verb === "clean" ? { force: { type: "boolean" as const } } : {}) },
    async execute({ home, json, io, values, positionals }) {
      const job = oneJob(positionals);
      return withOrch(
        app,
        home,
        async (client) => {
          const result = await client.callTool(
            verb === "merge" ? "agent_merge" : "agent_clean",
            verb === "merge" ? { job } : { job, force: values.force === true },
          );
          if (json) io.out(JSON.stringify(result));
          else if (result.status === "ok") io.out(result.content);
          else io.err(`${app.program}: ${result.status}: ${result.error?.message ?? ""}`);
          return result.status === "ok" ? Exit.ok : Exit.failed;
        },
        values.yes ? { autoApprove: true } : {},
      );
    },
  };
}
