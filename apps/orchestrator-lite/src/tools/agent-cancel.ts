import { defineTool, ToolFailure } from "@venom/proto";
import * as z from "zod";
import type { OrchContext } from "../context.js";

const CancelInput = z.strictObject({ job: z.string().min(1).max(64) });
type CancelInput = z.infer<typeof CancelInput>;

/** Stop a running job (its pane's whole process group), one this session may see. */
export const agentCancelTool = defineTool<CancelInput, OrchContext>({
  name: "agent_cancel",
  description: "Cancel a running agent job by id or label (its whole process group is stopped).",
  input: CancelInput,
  capabilities: ["process"],
  effect: "mutating",
  replay: "idempotent",
  summarize: (input) => `cancel job ${input.job.replace(/[^A-Za-z0-9_.-]/g, "?")}`,
  run: async (input, call) => {
    const job = call.context.orchestrator.cancel(input.job, call.context.state);
    if (!job) throw new ToolFailure(`no running job "${input.job.replace(/[^A-Za-z0-9_.-]/g, "?")}" that this session may cancel`);
    return { content: `cancelling ${job.name} (job ${job.id})`, data: { job: job.id, name: job.name } };
  },
});
