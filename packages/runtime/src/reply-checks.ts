import { AllMethods, ApprovalRequestParamsSchema, HelloResultSchema, MessageSchema, ToolResultSchema } from "@venom/proto";
import type { ReplyChecks } from "./client.js";

/** Every message and result a daemon sends, checked against proto's schemas: VenomClient's default. */
export const schemaChecks: ReplyChecks = {
  envelope: MessageSchema,
  hello: (raw) => HelloResultSchema.parse(raw),
  approvalRequest: (raw) => ApprovalRequestParamsSchema.parse(raw),
  result: (method, raw) => AllMethods[method].result.parse(raw),
  toolResult: (raw) => ToolResultSchema.parse(raw),
};
