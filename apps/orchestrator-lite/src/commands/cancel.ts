import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { withOrch } from "./client.js";
import { jobNames } from "./names.js";

/** `venom-orch cancel JOB`: through the agent_cancel tool, so it is gated like any process call. */
export function cancelCommand(app: CliApp): Command {
  return {
    name: "cancel",
    summary: "cancel a running job by id or label (asks y/N on a terminal; --yes approves)",
    usage: "cancel JOB [--yes]",
    management: false,
    complete: async (home, at) => ("argument" in at && at.argument === 0 ? jobNames(app, home) : []),
    options: { yes: { type: "boolean" } },
    async execute({ home, json, io, values, positionals }) {
      const [job, ...extra] = positionals;
      if (!job || extra.length > 0) throw new UsageError("expected one job id or label");
      return withOrch(
        app,
        home,
        async (client) => {
          const result = await client.callTool("agent_cancel", { job });
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
