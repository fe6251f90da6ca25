import { relative } from "node:path";
import { agentsOf, everyDeclaredVar } from "@venom/agents";
import { defineTool, ErrorCode, isSecretShaped, ProtocolError, ToolFailure } from "@venom/proto";
import { knownConfinement, refusedAsProtocolError, resolveCwd, sandboxNotices } from "@venom/runtime";
import { gitSync } from "@venom/runtime/git";
import * as z from "zod";
import { type Adapter, adapters, launchArgv, type Resolution, resolveAdapter } from "../adapters.js";
import type { OrchContext } from "../context.js";
import { transportShown } from "../host-link.js";
import type { JobRecord } from "../jobs.js";
import { agentConfigFound, type CheckoutFacts, launchSummary } from "../summary.js";
import { hostOf, remoteResolution } from "./agent-host.js";

const AgentInput = z.strictObject({
  /** An agent the session offers (`venom-orch agents list`). */
  agent: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, "an agent name"),
  /** Handed to the agent as exactly one argument, never through a shell. */
  prompt: z
    .string()
    .min(1)
    .max(64 * 1024),
  /** A directory inside the workspace (symlinks followed at launch); the workspace root by default. */
  cwd: z.string().min(1).max(4096).optional(),
  /** Detach the run from this call: the result says which job to watch. */
  background: z.boolean().default(false),
  /** Run it in a git worktree of its own, on a new branch (default: the agent's `worktree` setting). */
  worktree: z.boolean().optional(),
  /** The worktree's branch (default venom/LABEL); git checks the name too (worktree.ts). */
  branch: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/, "a branch name: letters, digits and . _ / -")
    .optional(),
  /** Run it on this `[hosts.NAME]` of the user's configuration (docs/remote.md), in its venom-mux's workspace. */
  host: z.string().min(1).max(64).optional(),
});
type AgentInput = z.infer<typeof AgentInput>;

/** The adapter a call names, offered here (or, for a host, as it will be resolved there), or a ProtocolError naming the field. */
function offeredAdapter(input: AgentInput, context: OrchContext): { adapter: Adapter; resolution: Resolution & { offered: true } } {
  const all = adapters(context.state.config);
  const adapter = all.find((a) => a.name === input.agent);
  if (!adapter) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `invalid params: arguments.agent: no agent "${input.agent}"; agents: ${all.map((a) => a.name).join(", ")}`,
      {
        path: ["arguments", "agent"],
      },
    );
  }
  // On a host the program is found there: a name on its PATH, or the path as given (docs/remote.md, "Agents").
  if (input.host !== undefined) return { adapter, resolution: remoteResolution(adapter) };
  const resolution = resolveAdapter(adapter);
  if (!resolution.offered) {
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: arguments.agent: ${adapter.name} is not offered: ${resolution.why}`, {
      path: ["arguments", "agent"],
    });
  }
  return { adapter, resolution };
}

/** What a worktree job did, for its result: branch, commits and files changed (the diff itself: venom-orch diff). */
function worktreeLines(worktree: NonNullable<JobRecord["worktree"]>, name: string): string {
  const lines = [`worktree ${worktree.path} on branch ${worktree.branch}, from ${worktree.base.slice(0, 12)}`];
  lines.push(worktree.commits.length > 0 ? `commits: ${worktree.commits.join("; ")}` : "no commits");
  if (worktree.stat) lines.push(worktree.stat);
  if (worktree.untracked.length > 0) lines.push(`new files: ${worktree.untracked.join(", ")}`);
  lines.push(`venom-orch diff ${name} shows it; venom-orch merge ${name} merges it; venom-orch clean ${name} removes it`, "");
  return lines.join("\n");
}

const wantsWorktree = (input: AgentInput, adapter: Adapter) => input.host === undefined && (input.worktree ?? adapter.worktree === true);

/**
 * The checkout the job runs in, for its approval summary: the repository and base commit its worktree is made from,
 * or (without one) another job already running in the same checkout.
 */
function checkoutFacts(input: AgentInput, adapter: Adapter, cwd: string, context: OrchContext): CheckoutFacts {
  const repo = gitSync(cwd, ["rev-parse", "--show-toplevel"])?.trim();
  if (wantsWorktree(input, adapter)) {
    if (!repo) throw new ToolFailure(`a worktree needs a git repository, and ${cwd} is in none`);
    const base = gitSync(repo, ["rev-parse", "--short=12", "HEAD"])?.trim() ?? "(no commit)";
    return { worktree: { repo, base, branch: input.branch ?? null } };
  }
  const busy = repo ? context.orchestrator.runningIn(repo) : undefined;
  return busy ? { busyWith: busy.name } : {};
}

function launchCwd(input: AgentInput, context: OrchContext): string {
  try {
    return resolveCwd(input.cwd ?? ".", context.state.workspace);
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: arguments.cwd: ${error.message.replace(/^cwd:? ?/, "")}`, {
      path: ["arguments", "cwd"],
    });
  }
}

/**
 * Hand a prompt to an agent CLI in a venom-mux pane (conformance/spec/security-model.txt, "`agent` tool"):
 * the configured adapter's argv with the prompt as one argument, an
 * allow-listed environment with a private home, cwd inside the workspace,
 * bounded by the call's timeout; the approvals of whatever runs in the pane
 * come back to this session through the relay.
 */
export const agentTool = defineTool<AgentInput, OrchContext>({
  name: "agent",
  description:
    "Run an agent CLI on a prompt in a venom-mux pane (arguments: agent, prompt, optional cwd inside the workspace, background). The result has the exit code and a bounded tail of the pane (untrusted agent output).",
  input: AgentInput,
  capabilities: ["process"],
  effect: "mutating",
  replay: "unsafe",
  precheck: (input, context) => {
    hostOf(input, context);
    offeredAdapter(input, context);
    // venom-mux confines the agent as the record the caller descends from says (ancestorRecord); with no record to say it, nothing starts.
    refusedAsProtocolError(() => knownConfinement(context.state.confinement));
    const depth = context.launcher.depth + 1;
    const max = context.state.config.agent.max_delegation_depth;
    if (depth > max) {
      throw new ProtocolError(
        ErrorCode.DepthLimit,
        `refused: ${input.agent} would run at delegation depth ${depth}, over the limit of ${max} (agent.max_delegation_depth)`,
      );
    }
    if (input.host === undefined) launchCwd(input, context);
  },
  summarize: (input, context) => {
    const { adapter, resolution } = offeredAdapter(input, context);
    const host = hostOf(input, context);
    if (host) {
      return launchSummary({
        adapter,
        transport: resolution.transport,
        where: host.config.workspace ?? "its venom-mux's workspace",
        host: { name: host.name, via: transportShown(host.config) },
        prompt: input.prompt,
        background: input.background,
        found: [],
      });
    }
    const cwd = launchCwd(input, context);
    return launchSummary({
      adapter,
      transport: resolution.transport,
      where: relative(context.state.workspace, cwd) || ".",
      prompt: input.prompt,
      background: input.background,
      found: agentConfigFound(cwd, context.state.workspace),
      checkout: checkoutFacts(input, adapter, cwd, context),
    });
  },
  run: async (input, call) => {
    const context = call.context;
    const { adapter, resolution } = offeredAdapter(input, context);
    const env: Record<string, string> = {};
    const declared = everyDeclaredVar(agentsOf(context.state.config));
    for (const name of adapter.envPass) {
      const value = process.env[name];
      if (value !== undefined && !isSecretShaped(name, declared)) env[name] = value;
    }
    const host = hostOf(input, context);
    const job = context.orchestrator.start(
      {
        adapter,
        argv: launchArgv(adapter, resolution, input.prompt),
        prompt: input.prompt,
        // A host's job runs in its venom-mux's workspace, known once connected; this workspace's path means nothing there.
        cwd: host ? (host.config.workspace ?? context.state.workspace) : launchCwd(input, context),
        ...(host ? { host } : {}),
        ...(wantsWorktree(input, adapter) ? { worktree: { branch: input.branch } } : {}),
        background: input.background,
        timeoutSeconds: call.timeoutSeconds,
        env,
        launcher: context.launcher,
        confinement: sandboxNotices(context.state.config),
        ...(resolution.transport === "acp"
          ? { acp: { prompt: input.prompt, maxMessageBytes: context.state.config.protocol.max_frame_bytes } }
          : {}),
      },
      input.background ? undefined : call.signal,
    );
    const { name, id } = job.record;
    if (input.background) {
      return {
        content: `started ${name} (job ${id}) in the background; venom-orch jobs shows it, venom-orch attach ${name} watches it`,
        data: { job: id, name, state: job.record.state },
      };
    }
    const { job: ended, tail } = await job.done;
    const { worktree } = ended;
    const data = {
      job: id,
      name,
      result: ended.state === "done" ? "ok" : ended.state,
      exitCode: ended.exitCode,
      signal: ended.signal,
      ...(worktree ? { worktree } : {}),
    };
    const head = `${name}: ${ended.state}${ended.exitCode !== null ? ` (exit ${ended.exitCode})` : ""}${ended.note ? `: ${ended.note}` : ""}`;
    const content = `${head}\n${worktree ? worktreeLines(worktree, name) : ""}${tail}`;
    if (ended.state === "done") return { content, data };
    if (ended.state === "cancelled") {
      return {
        status: "uncertain",
        content,
        data,
        error: { message: `${name} was cancelled; it may have made changes`, retry: "forbidden" },
      };
    }
    const why =
      ended.state === "timeout"
        ? `${name} timed out after ${call.timeoutSeconds}s`
        : ended.state === "declined"
          ? `${name} declined the task (its stop reason was refusal)`
          : `${name} failed${ended.note ? `: ${ended.note}` : ""}`;
    return { status: "failed", content, data, error: { message: why, retry: "forbidden" } };
  },
});
