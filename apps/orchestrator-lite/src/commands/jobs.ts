import { type CliApp, type Command, Exit } from "@venom/runtime/cli";
import { withOrch } from "./client.js";

/** `venom-orch jobs`: the jobs you may see, running and finished. */
export function jobsCommand(app: CliApp): Command {
  return {
    name: "jobs",
    summary: "list agent jobs: id, label, state, exit code",
    usage: "jobs",
    management: false,
    async execute({ home, json, io }) {
      return withOrch(app, home, async (client) => {
        const result = await client.callTool("agent_jobs", {});
        if (json) io.out(JSON.stringify(result.data ?? {}));
        else io.out(result.content.replace(/\n$/, ""));
        return result.status === "ok" ? Exit.ok : Exit.failed;
      });
    },
  };
}
