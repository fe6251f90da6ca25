/**
 * Every venom/1 wire message, declared once. Servers, clients, the conformance
 * suite and docs/protocol.md all derive from these schemas; nothing redeclares them.
 */
import { z } from "zod";
import { CapabilitySchema } from "./capabilities.js";

export const PROTOCOL = "venom/1";
export const SUPPORTED_PROTOCOLS = [PROTOCOL] as const;

/** JSON-RPC error codes of venom/1 (DESIGN.md, "Wire protocol"). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HelloRequired: -32001,
  UnsupportedProtocol: -32002,
  OwnerRequired: -32003,
  DepthLimit: -32004,
  ToolNotGranted: -32005,
  Busy: -32006,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

// ── JSON-RPC 2.0 envelopes ────────────────────────────────────────────────
export const RequestIdSchema = z.union([z.string().max(128), z.number().int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

export const RequestSchema = z.strictObject({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema,
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export const NotificationSchema = z.strictObject({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export const ErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export const ResponseSchema = z.union([
  z.strictObject({ jsonrpc: z.literal("2.0"), id: RequestIdSchema, result: z.unknown() }),
  z.strictObject({ jsonrpc: z.literal("2.0"), id: RequestIdSchema.nullable(), error: ErrorObjectSchema }),
]);
/** Any one line of venom/1: a request, a notification or a response. */
export const MessageSchema = z.union([RequestSchema, NotificationSchema, ResponseSchema]);
export type Request = z.infer<typeof RequestSchema>;
export type Notification = z.infer<typeof NotificationSchema>;
export type Response = z.infer<typeof ResponseSchema>;
export type ErrorObject = z.infer<typeof ErrorObjectSchema>;

// ── Identity and grants ──────────────────────────────────────────────────
export const PrincipalSchema = z.strictObject({
  /** owner: same uid, depth 0, socket. local: same uid, depth 0, stdio (no management). delegate: depth > 0. */
  kind: z.enum(["owner", "local", "delegate"]),
  depth: z.number().int().min(0),
  parent: z.string().nullable(),
  uid: z.number().int(),
  pid: z.number().int().nullable(),
  /** What the server saw that decided the depth: "claimed", "environ", "ancestry". */
  evidence: z.array(z.string()),
});
export type Principal = z.infer<typeof PrincipalSchema>;

export const ApprovalPolicySchema = z.enum(["on-risk", "always", "never"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

export const GrantSchema = z.strictObject({
  tools: z.array(z.string()),
  policy: ApprovalPolicySchema,
  autoApprove: z.boolean(),
  manage: z.boolean(),
});
export type Grant = z.infer<typeof GrantSchema>;

export const EffectSchema = z.enum(["read-only", "mutating"]);
export const ReplaySchema = z.enum(["safe", "idempotent", "unsafe"]);
export type Effect = z.infer<typeof EffectSchema>;
export type Replay = z.infer<typeof ReplaySchema>;

/** What an approval is asked for: derived from the tool and this call's input. */
export const RiskSchema = z.enum(["read", "secret-read", "write", "process", "network"]);
export type Risk = z.infer<typeof RiskSchema>;

export const ToolDescriptorSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  capabilities: z.array(CapabilitySchema),
  effect: EffectSchema,
  replay: ReplaySchema,
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;

export const SnapshotSchema = z.strictObject({
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  tools: z.array(ToolDescriptorSchema),
});
export type SnapshotWire = z.infer<typeof SnapshotSchema>;

// ── Tool results ─────────────────────────────────────────────────────────
export const ToolStatusSchema = z.enum(["ok", "failed", "denied", "cancelled", "uncertain"]);
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

export const ToolResultSchema = z.strictObject({
  status: ToolStatusSchema,
  content: z.string(),
  /** Structured facts a tool reports beside its text (e.g. a write's commit and durability). */
  data: z.record(z.string(), z.unknown()).optional(),
  error: z
    .strictObject({
      message: z.string(),
      /** "forbidden" on every uncertain result: the effect may have happened. */
      retry: z.enum(["allowed", "forbidden"]),
    })
    .optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

// ── Methods ──────────────────────────────────────────────────────────────
const PathSchema = z.string().min(1).max(4096);

export const HelloParamsSchema = z.strictObject({
  protocol: z.string().max(64),
  client: z.strictObject({ name: z.string().min(1).max(64), version: z.string().max(64) }),
  workspace: PathSchema.optional(),
  /** The client has a gate: it answers approval/request. Without one, every approval denies. */
  approvals: z.boolean().optional(),
  /** The client's own statement that it approves whatever it is asked (used for background work). */
  autoApprove: z.boolean().optional(),
  noTools: z.boolean().optional(),
  /** Depth and parent the client claims; the server takes the deeper of this and what it observes. */
  delegation: z.strictObject({ depth: z.number().int().min(0).max(1000), parent: z.string().max(256).nullable() }).optional(),
});
export const HelloResultSchema = z.strictObject({
  protocol: z.literal(PROTOCOL),
  server: z.strictObject({ name: z.string(), version: z.string() }),
  instance: z.string(),
  principal: PrincipalSchema,
  grant: GrantSchema,
  workspace: z.string().nullable(),
  snapshot: SnapshotSchema,
  notices: z.array(z.string()),
});

export const ToolsListResultSchema = SnapshotSchema;

export const ToolsCallParamsSchema = z.strictObject({
  name: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).default({}),
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  /** Chosen by the client so it can cancel the call and match approval requests to it. */
  callId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
    .optional(),
});
export const ToolsCancelParamsSchema = z.strictObject({ callId: z.string().max(64) });
export const ToolsCancelResultSchema = z.strictObject({ cancelled: z.boolean() });

export const EmptyParamsSchema = z.strictObject({}).optional();
export const DaemonStatusResultSchema = z.strictObject({
  server: z.strictObject({ name: z.string(), version: z.string() }),
  instance: z.string(),
  pid: z.number().int(),
  uptimeSeconds: z.number(),
  workspace: z.string(),
  connections: z.number().int(),
  activeCalls: z.number().int(),
  notices: z.array(z.string()),
});
export const DaemonStopResultSchema = z.strictObject({ stopping: z.literal(true) });
export const DaemonRestartParamsSchema = z.strictObject({ whenIdle: z.boolean().optional() }).optional();
export const DaemonRestartResultSchema = z.strictObject({ scheduled: z.literal(true), whenIdle: z.boolean() });

export const ApprovalRequestParamsSchema = z.strictObject({
  callId: z.string(),
  tool: z.string(),
  summary: z.string().max(1024),
  risk: RiskSchema,
  /** Who is asking, e.g. "[echo]" or "[echo via claude-1 depth 1]". */
  label: z.string().max(256),
});
export const ApprovalResponseSchema = z.strictObject({ decision: z.enum(["approve", "deny"]) });
export type ApprovalRequest = z.infer<typeof ApprovalRequestParamsSchema>;

export const ToolEventSchema = z.strictObject({
  callId: z.string(),
  tool: z.string(),
  phase: z.enum(["started", "finished"]),
  status: ToolStatusSchema.optional(),
});

/**
 * The method table of venom/1. `direction` says who sends it; `management`
 * marks owner-only methods. A server validates params against this table and
 * nothing else; docs/protocol.md is generated from it.
 */
export const Methods = {
  hello: { direction: "client", management: false, params: HelloParamsSchema, result: HelloResultSchema },
  "tools/list": { direction: "client", management: false, params: EmptyParamsSchema, result: ToolsListResultSchema },
  "tools/call": { direction: "client", management: false, params: ToolsCallParamsSchema, result: ToolResultSchema },
  "tools/cancel": { direction: "client", management: false, params: ToolsCancelParamsSchema, result: ToolsCancelResultSchema },
  "daemon/status": { direction: "client", management: false, params: EmptyParamsSchema, result: DaemonStatusResultSchema },
  "daemon/stop": { direction: "client", management: true, params: EmptyParamsSchema, result: DaemonStopResultSchema },
  "daemon/restart": {
    direction: "client",
    // A restart when idle is the one management call a delegate may make (spec, "Delegated runs").
    management: true,
    params: DaemonRestartParamsSchema,
    result: DaemonRestartResultSchema,
  },
  "approval/request": {
    direction: "server",
    management: false,
    params: ApprovalRequestParamsSchema,
    result: ApprovalResponseSchema,
  },
} as const;
export type MethodName = keyof typeof Methods;

export const Notifications = {
  "event/tool": { direction: "server", params: ToolEventSchema },
} as const;
