import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { muxMain } from "../adapters.js";
import type { JobRecord } from "../jobs.js";
import { withOrch } from "./client.js";

/** `venom-orch attach JOB`: watch (and take over) the job's pane, through venom-mux's own attach. */
export function attachCommand(app: CliApp): Command {
  return {
    name: "attach",
    summary: "attach to a running job's pane (venom-mux attach; C-b d detaches)",
    usage: "attach JOB",
    management: false,
    async execute({ home, io, positionals }) {
      const [target, ...extra] = positionals;
      if (!target || extra.length > 0) throw new UsageError("expected one job id or label");
      const jobs = await withOrch(app, home, async (client) => (await client.callTool("agent_jobs", {})).data?.jobs as JobRecord[]);
      const job = (jobs ?? []).find((j) => j.id === target || j.name === target);
      if (!job) throw new Error(`no job "${target}" that you may see`);
      if (job.state !== "running" && job.state !== "awaiting-approval")
        throw new Error(`${job.name} is ${job.state}: nothing to attach to`);
      // Loaded here: child_process is not worth the start time of every command.
      const { spawn } = await import("node:child_process");
      const child = spawn(process.execPath, [muxMain(), "attach", "-t", job.name], { stdio: "inherit" });
      const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? Exit.failed)));
      // venom-mux attach said why it ended; only a detach it ended with (exit 0) was one.
      if (code === Exit.ok) io.err(`${app.program}: detached from ${job.name}`);
      return code;
    },
  };
}
