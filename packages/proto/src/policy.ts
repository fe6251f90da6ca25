/**
 * The approval policy, in a module of its own: the configuration's schemas
 * use it, and importing it from wire.ts made `venom-orch agents list` build
 * every wire schema (about 20 ms of its start) to read one enum.
 */
import * as z from "zod";

export const ApprovalPolicySchema = z.enum(["on-risk", "always", "never"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;
