import { defineTool, terminalSafe } from "@venom/proto";
import * as z from "zod";
import type { OrchContext } from "../context.js";

/** The jobs this session may see: the owner's view is every job; a delegate's, those of its own delegation. */
export const agentJobsTool = defineTool<Record<string, never>, OrchContext>({
  name: "agent_jobs",
  description: "List the agent jobs this session may see, with their state, the approval a job waits for, exit code and pane label.",
  input: z.strictObject({}),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: () => "list agent jobs",
  run: async (_input, call) => {
    const jobs = call.context.orchestrator.list(call.context.state);
    const lines = jobs.map(
      (j) =>
        `${j.id} ${j.name}${j.host !== null ? `@${j.host}` : ""} ${j.state}${j.pending ? ` waiting for: ${terminalSafe(j.pending, { singleLine: true })}` : ""}${j.exitCode !== null ? ` exit=${j.exitCode}` : ""}${j.transport === "acp" ? " acp" : ""}${j.refusedRequests > 0 ? ` refused=${j.refusedRequests}` : ""}${j.background ? " background" : ""} cwd=${terminalSafe(j.cwd, { singleLine: true })}${j.note ? ` (${j.note})` : ""}`,
    );
    return { content: lines.length > 0 ? `${lines.join("\n")}\n` : "no jobs\n", data: { jobs } };
  },
});
