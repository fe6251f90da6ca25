import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { muxMain } from "../adapters.js";
import { transportArgv } from "../host-argv.js";
import type { JobRecord } from "../jobs.js";
import { withOrch } from "./client.js";
import { configuredHost } from "./hosts.js";
import { jobNames } from "./names.js";

/** `venom-orch attach JOB`: watch (and take over) the job's pane, through venom-mux's own attach. */
export function attachCommand(app: CliApp): Command {
  return {
    name: "attach",
    summary: "attach to a running job's pane (venom-mux attach; C-b d detaches)",
    usage: "attach JOB",
    management: false,
    complete: async (home, at) => ("argument" in at && at.argument === 0 ? jobNames(app, home) : []),
    async execute({ home, io, positionals }) {
      const [target, ...extra] = positionals;
      if (!target || extra.length > 0) throw new UsageError("expected one job id or label");
      const find = async () => {
        const jobs = await withOrch(app, home, async (client) => (await client.callTool("agent_jobs", {})).data?.jobs as JobRecord[]);
        return (jobs ?? []).find((j) => j.id === target || j.name === target);
      };
      const job = await find();
      if (!job) throw new Error(`no job "${target}" that you may see`);
      if (!live(job)) throw new Error(`${job.name} is ${job.state}: nothing to attach to`);
      // Loaded here: child_process is not worth the start time of every command.
      const { spawn } = await import("node:child_process");
      // This job's pane only: when it ends, so does the attach, rather than moving on to another pane.
      // A host's job: venom-mux attach here, its connection a new bridge to that host (docs/remote.md, "Attach, cancel, diff").
      const via = job.host !== null ? ["--via", JSON.stringify(transportArgv(await configuredHost(app, home, job.host)))] : [];
      const child = spawn(process.execPath, [muxMain(), "attach", "--exit-with-pane", ...via, "-t", job.name], { stdio: "inherit" });
      const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? Exit.failed)));
      // venom-mux attach said why it ended; an exit 0 was a detach or the pane's end, which venom-mux can tell.
      if (code !== Exit.ok) return code;
      // This machine's venom-mux does not list a host's panes: its job's record says whether it ended.
      const pane = job.host !== null ? undefined : await muxListing(spawn).then((panes) => panes.find((p) => p.name === job.name));
      if (pane?.status === "running" || (job.host !== null && (await find().then((j) => j && live(j))))) {
        io.err(`${app.program}: detached from ${job.name}`);
        return code;
      }
      // The pane ended: the job's record follows in a moment (its result is read from the screen first).
      let after = await find();
      for (let waited = 0; after && live(after) && waited < JOB_SETTLE_MS; waited += SETTLE_POLL_MS) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
        after = await find();
      }
      io.err(`${app.program}: ${job.name} ended${after && !live(after) ? `: ${after.state}` : ""}`);
      return code;
    },
  };
}

const live = (job: JobRecord) => job.state === "running" || job.state === "awaiting-approval";

/** How long a job whose pane ended may take to be recorded as ended, polled this often. */
const JOB_SETTLE_MS = 5000;
const SETTLE_POLL_MS = 50;

/** venom-mux's panes, as `venom-mux ls --json` lists them (through its CLI, as attach itself is). */
async function muxListing(spawn: typeof import("node:child_process").spawn): Promise<{ name: string; status: string }[]> {
  const child = spawn(process.execPath, [muxMain(), "ls", "--json"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  try {
    return code === 0 ? JSON.parse(out) : [];
  } catch {
    return [];
  }
}
