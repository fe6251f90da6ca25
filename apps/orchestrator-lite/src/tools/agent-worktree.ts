import { cutMiddle, defineTool, ToolFailure, terminalSafe } from "@venom/proto";
import * as z from "zod";
import type { OrchContext } from "../context.js";
import { FINAL_STATES, type JobRecord } from "../jobs.js";
import { mergeWorktree, removeWorktree } from "../worktree.js";

// A worktree job's branch merged, or its worktree removed (docs/venom-orch.md,
// "Parallel agents and worktrees"): each asks like any write, and only for a
// job that ended and that this session may see.

const JobInput = z.strictObject({ job: z.string().min(1).max(64) });
const CleanInput = z.strictObject({ job: z.string().min(1).max(64), force: z.boolean().default(false) });

const named = (job: string) => job.replace(/[^A-Za-z0-9_.-]/g, "?");

/** What stopped a merge or a removal, said to the person: git's own words name the repository's files, so escaped and bounded. */
async function said<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new ToolFailure(cutMiddle(terminalSafe((error as Error).message), 2000));
  }
}

/** The job this session may see by id or label, with a worktree still there; `running` says whether it may be running. */
function worktreeJob(
  context: OrchContext,
  target: string,
  running: "refused" | "allowed",
): JobRecord & { worktree: NonNullable<JobRecord["worktree"]> } {
  const job = context.orchestrator.list(context.state).find((j) => j.id === target || j.name === target);
  if (!job) throw new ToolFailure(`no job "${named(target)}" that this session may see`);
  if (!job.worktree) throw new ToolFailure(`${job.name} ran without a worktree (venom-orch run --worktree makes one)`);
  if (job.worktree.removed) throw new ToolFailure(`${job.name}'s worktree was removed`);
  if (running === "refused" && !FINAL_STATES.includes(job.state))
    throw new ToolFailure(`${job.name} is still ${job.state}: cancel it or wait for it first`);
  return job as JobRecord & { worktree: NonNullable<JobRecord["worktree"]> };
}

export const agentMergeTool = defineTool<z.infer<typeof JobInput>, OrchContext>({
  name: "agent_merge",
  description:
    "Merge an ended worktree job's branch (its uncommitted work committed first) into the branch checked out in the main worktree: fast-forward when possible, else a merge commit; a conflict or a dirty main worktree changes nothing.",
  input: JobInput,
  capabilities: ["fs.write"],
  effect: "mutating",
  replay: "unsafe",
  summarize: (input, context) => {
    const { worktree, name } = worktreeJob(context, input.job, "refused");
    return `merge ${name}'s branch ${worktree.branch} into the branch checked out in ${worktree.repo}`;
  },
  run: async (input, call) => {
    const job = worktreeJob(call.context, input.job, "refused");
    const merged = await said(() => mergeWorktree(job.worktree, job.name));
    return { content: merged, data: { job: job.id, name: job.name, branch: job.worktree.branch } };
  },
});

export const agentCleanTool = defineTool<z.infer<typeof CleanInput>, OrchContext>({
  name: "agent_clean",
  description: "Remove an ended worktree job's worktree and branch; refused while it has uncommitted changes unless force.",
  input: CleanInput,
  capabilities: ["fs.write"],
  effect: "mutating",
  replay: "idempotent",
  summarize: (input, context) => {
    const { worktree, name } = worktreeJob(context, input.job, "refused");
    return `remove ${name}'s worktree ${worktree.path} and its branch ${worktree.branch}${input.force ? ", uncommitted changes too (--force)" : ""}`;
  },
  run: async (input, call) => {
    const job = worktreeJob(call.context, input.job, "refused");
    await said(() => removeWorktree(job.worktree, input.force));
    await call.context.orchestrator.keep({ ...job, worktree: { ...job.worktree, removed: true } });
    return { content: `removed ${job.worktree.path} and the branch ${job.worktree.branch}`, data: { job: job.id, name: job.name } };
  },
});
