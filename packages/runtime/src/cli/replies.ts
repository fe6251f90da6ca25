import type { ApprovalRequest, HelloResultSchema, Message, ToolResult } from "@venom/proto";
import type { z } from "zod";
import type { ReplyChecks } from "../client.js";

/** Shaped enough to route: a request or notification (a method), or a response to an id (a result or an error). */
function routable(raw: unknown): raw is Message {
  if (typeof raw !== "object" || raw === null) return false;
  const m = raw as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return false;
  if (typeof m.method === "string") return true;
  if (typeof m.id !== "string" && typeof m.id !== "number" && m.id !== null) return false;
  if ("result" in m) return true;
  const error = m.error as { code?: unknown; message?: unknown } | null | undefined;
  return typeof error?.code === "number" && typeof error.message === "string";
}

/** An approval request as the terminal gate prints it: the fields it shows must be text. */
function printableApproval(raw: unknown): ApprovalRequest {
  const request = (raw ?? {}) as Record<string, unknown>;
  for (const field of ["callId", "tool", "summary", "risk", "label"]) {
    if (typeof request[field] !== "string") throw new Error(`approval/request without a text ${field}`);
  }
  return request as unknown as ApprovalRequest;
}

/**
 * What a CLI command checks of its own daemon's messages (docs/benchmarks.md): that a
 * line can be routed, and that what it prints is there, so that a command
 * starts without loading zod. The daemon validated the call.
 */
export const cliChecks: ReplyChecks = {
  envelope: { safeParse: (raw) => (routable(raw) ? { success: true, data: raw } : { success: false }) },
  hello: (raw) => raw as z.infer<typeof HelloResultSchema>,
  approvalRequest: printableApproval,
  result: (_method, raw) => raw,
  toolResult: (raw) => raw as ToolResult,
};
