/**
 * Every venom/1 wire message, declared once. Servers, clients, the conformance
 * suite and docs/protocol.md all derive from these schemas; nothing redeclares them.
 */
import * as z from "zod";
import { CapabilitySchema } from "./capabilities.js";
import { PROTOCOL } from "./codes.js";
import { ApprovalPolicySchema } from "./policy.js";
import { isStartUpVar } from "./start-up-vars.js";

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
export type Message = z.infer<typeof MessageSchema>;
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
  /** Every request method this daemon answers (management ones included, though the principal may be refused them). */
  methods: z.array(z.string()),
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
  /**
   * venom-orch's inbox id of the same question, when it is also waiting there: the client may be sent
   * `approval/settled` with it when the question was answered elsewhere first.
   */
  questionId: z.string().max(64).optional(),
});
export const ApprovalResponseSchema = z.strictObject({ decision: z.enum(["approve", "deny"]) });
export type ApprovalRequest = z.infer<typeof ApprovalRequestParamsSchema>;

/**
 * A daemon hands a delegate's approval to the daemon that owns the delegation
 * (conformance/spec/design.md, "Delegation across daemons"); that daemon shows it to the session
 * that launched the delegation. Accepted only from owner-context peers.
 */
export const ApprovalRelayParamsSchema = z.strictObject({
  /** The delegation record (its id) the calling delegate descends from. */
  record: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/),
  /** Depth of the delegate whose call asks. */
  depth: z.number().int().min(1).max(1000),
  request: ApprovalRequestParamsSchema,
});

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
    // A restart when idle is the one management call a delegate may make (conformance/spec/security-model.txt, "Delegated runs").
    management: true,
    params: DaemonRestartParamsSchema,
    result: DaemonRestartResultSchema,
  },
  "approval/relay": {
    direction: "client",
    // Owner context only: a delegate must never be able to inject or answer approvals.
    management: true,
    params: ApprovalRelayParamsSchema,
    result: ApprovalResponseSchema,
  },
  "approval/request": {
    direction: "server",
    management: false,
    params: ApprovalRequestParamsSchema,
    result: ApprovalResponseSchema,
  },
} as const;
export type MethodName = keyof typeof Methods;

// ── venom-mux: panes ─────────────────────────────────────────────────────
/** A pane by id (`%3`) or by name. */
export const PaneTargetSchema = z.string().min(1).max(64);
const PaneNameSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "letters, digits and _ . : - only");
const DimensionSchema = z.number().int().min(2).max(1000);
const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/);
/** Variables a caller sets for a process a daemon starts: never a loader or start-up one (START_UP_VARS). */
export const CallerEnvSchema = z.record(EnvNameSchema, z.string().max(64 * 1024)).superRefine((env, ctx) => {
  for (const name of Object.keys(env)) {
    if (isStartUpVar(name)) {
      ctx.addIssue({
        code: "custom",
        path: [name],
        message:
          'a loader or start-up variable, which would run code the approval never showed, cannot be set (docs/security-model.md, "Start-up variables")',
      });
    }
  }
});
/** Whose private home under $VENOM_HOME/agents/ a delegated process gets. */
export const AgentNameSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/);
/** A delegation record's id: also its file name in $VENOM_HOME/state/delegations. */
export const DelegationIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "letters, digits, _ and - (at most 64)");

export const PaneInfoSchema = z.strictObject({
  id: z.string(),
  index: z.number().int(),
  name: z.string(),
  argv: z.array(z.string()),
  cwd: z.string(),
  pid: z.number().int(),
  cols: z.number().int(),
  rows: z.number().int(),
  status: z.enum(["running", "exited"]),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Delegation depth of the processes in the pane. */
  depth: z.number().int(),
  envPolicy: z.enum(["inherit", "delegated"]),
  /** "pipe": stdio pipes instead of a pty; the screen shows the program's stderr. */
  mode: z.enum(["pty", "pipe"]).optional(),
  clients: z.number().int(),
  createdAt: z.string(),
  /** pane/list only, what the screen model and the kernel say now: the title the program set (escaped by whoever shows it). */
  title: z.string().optional(),
  /** Cursor position on the screen, from 0. */
  cursor: z.strictObject({ x: z.number().int(), y: z.number().int() }).optional(),
  /** The pty's foreground process group: its leader's pid and command line (null when none can be told). */
  foreground: z
    .strictObject({ pid: z.number().int(), argv: z.array(z.string()) })
    .nullable()
    .optional(),
  /** The foreground group is asleep waiting on input (read/select/poll) and the pane has been quiet a moment. */
  waitingForInput: z.boolean().optional(),
  /** Milliseconds since the pane last printed anything (since it started, if never). */
  quietMs: z.number().int().optional(),
});
export type PaneInfo = z.infer<typeof PaneInfoSchema>;

export const PaneNewParamsSchema = z.strictObject({
  argv: z
    .array(z.string().max(64 * 1024))
    .min(1)
    .max(1024)
    .optional(),
  cwd: z.string().min(1).max(4096).optional(),
  name: PaneNameSchema.optional(),
  cols: DimensionSchema.default(80),
  rows: DimensionSchema.default(24),
  env: CallerEnvSchema.optional(),
  /**
   * inherit: the user's environment, as tmux does. delegated: scrubbed, with a private HOME (for agents).
   * A delegate's pane is always delegated, as the agent it descends from (docs/security-model.md).
   */
  envPolicy: z.enum(["inherit", "delegated"]).default("inherit"),
  /** Under `delegated`: whose private home under $VENOM_HOME/agents/ the pane gets; a delegate names only its own agent. */
  agent: AgentNameSchema.optional(),
  /** Under `delegated`: the agent's own state variable (e.g. CODEX_HOME), pointed inside its private home. */
  stateVar: EnvNameSchema.optional(),
  /**
   * Depth of whoever the caller launches for; the pane runs one level below the
   * deeper of this and the caller's own depth (an orchestrator launching for a delegate).
   */
  parentDepth: z.number().int().min(0).max(1000).optional(),
  /** "connection": the pane and its processes end when the creating connection closes (its owner died or let go). */
  lifetime: z.enum(["detached", "connection"]).default("detached"),
  /**
   * "pipe": the program gets pipes, not a terminal (an ACP agent speaking JSON-RPC on stdio).
   * Its stdin and stdout belong to the creating connection (`pane/stdin`, `pane/stdout`), so
   * the pane is bound to it whatever `lifetime` says; its stderr is what capture and attach show.
   */
  mode: z.enum(["pty", "pipe"]).default("pty"),
  /**
   * A delegation record whose Landlock layers the pane keeps, on top of the
   * caller's own: an orchestrator launching for a confined delegate names the
   * delegate's record. It can only narrow, so any caller may name any record.
   */
  confinedAs: DelegationIdSchema.optional(),
  /**
   * When the pane is confined, one more layer that writes only these paths (absolute, existing) and its private
   * home and temp dir, reading and running as before: an agent in a git worktree writes its worktree and what of
   * the git directory a worktree needs, not the main checkout. Stacked, it can only narrow, so any caller may ask;
   * an unconfined pane stays unconfined.
   */
  writableOnly: z.array(z.string().min(1).max(4096)).min(1).max(16).optional(),
});
export const PaneListParamsSchema = z
  .strictObject({
    /**
     * Only what the pane table knows (no title, cursor, foreground, waitingForInput or quietMs):
     * what `venom-mux ls` prints, answered without asking the screen model or reading /proc.
     */
    brief: z.boolean().default(false),
  })
  .optional();
export const PaneListResultSchema = z.strictObject({ panes: z.array(PaneInfoSchema) });
export const PaneSendParamsSchema = z.strictObject({
  target: PaneTargetSchema,
  /** Typed as it is (default nothing). */
  data: z
    .string()
    .max(1024 * 1024)
    .default(""),
  /** Sent after `data`: tmux key names, encoded by the daemon for the pane's current modes (DECCKM, keypad), or text. */
  keys: z
    .array(z.union([z.strictObject({ key: z.string().min(1).max(64) }), z.strictObject({ text: z.string().max(1024 * 1024) })]))
    .max(4096)
    .optional(),
  /** `data` is a paste (tmux paste-buffer -p): LF becomes CR, and it is bracketed when the program enabled bracketed paste. */
  paste: z.boolean().optional(),
  enter: z.boolean().optional(),
});
export const PaneSendResultSchema = z.strictObject({ bytes: z.number().int() });
export const PaneResizeParamsSchema = z.strictObject({ target: PaneTargetSchema, cols: DimensionSchema, rows: DimensionSchema });
export const PaneCaptureParamsSchema = z.strictObject({
  target: PaneTargetSchema,
  /** First line, tmux-style: 0 is the top visible line, negative reaches into scrollback; default 0. */
  start: z.number().int().optional(),
  /** Last line, inclusive; default the last visible line. */
  end: z.number().int().optional(),
  /** Keep colours and attributes as SGR escapes (tmux -e). */
  escapes: z.boolean().optional(),
  /** Join wrapped lines (tmux -J). */
  join: z.boolean().optional(),
  /** Keep trailing spaces (tmux -N); -J keeps them too. */
  trailingSpaces: z.boolean().optional(),
});
export const PaneCaptureResultSchema = z.strictObject({
  text: z.string(),
  /** How much the pane had printed when this screen was taken (a position in its output): pane/wait's `since`. */
  printed: z.number().int().nonnegative(),
});
export const PaneAttachParamsSchema = z.strictObject({
  target: PaneTargetSchema,
  cols: DimensionSchema.optional(),
  rows: DimensionSchema.optional(),
});
export const PaneAttachResultSchema = z.strictObject({
  attachment: z.string(),
  pane: PaneInfoSchema,
  /** Escape sequences that redraw the pane's current screen (alternate screen and cursor included). */
  screen: z.string(),
});
export const PaneDetachParamsSchema = z.strictObject({ attachment: z.string() });
export const PaneDetachResultSchema = z.strictObject({ detached: z.boolean() });
export const PaneTargetParamsSchema = z.strictObject({ target: PaneTargetSchema });
export const PaneKillResultSchema = z.strictObject({ killed: z.literal(true), pane: PaneInfoSchema });
export const PaneWaitParamsSchema = z.strictObject({
  target: PaneTargetSchema,
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  /** Also done once the pane has printed nothing for this many milliseconds. */
  quietMs: z.number().int().positive().max(86_400_000).optional(),
  /** Also done at the pane's next output. */
  output: z.boolean().optional(),
  /**
   * With `output`: output past this position (a capture's `printed`) counts even if it came before this request, so
   * output between a capture and a wait is never missed.
   */
  since: z.number().int().nonnegative().optional(),
});
export const PaneWaitResultSchema = z.strictObject({
  pane: PaneInfoSchema,
  timedOut: z.boolean(),
  /** What ended the wait (absent from daemons that only wait for exit). */
  reason: z.enum(["exit", "quiet", "output", "timeout"]).optional(),
});
export const PaneRenameParamsSchema = z.strictObject({ target: PaneTargetSchema, name: PaneNameSchema });
/** Bytes for a pipe pane's stdin, base64 (a frame carries at most 256 KiB of them). */
export const PaneStdinParamsSchema = z.strictObject({
  target: PaneTargetSchema,
  data: z.base64().max(349_528).default(""),
  /** Close the program's stdin after `data`. */
  end: z.boolean().optional(),
});
export const PaneStdinResultSchema = z.strictObject({ bytes: z.number().int() });

/**
 * The repository of a directory on venom-mux's machine: another host's venom-orch job is diffed there
 * (docs/remote.md, "Attach, cancel, diff"). Git runs with every program it could run turned off.
 */
export const RepoHeadParamsSchema = z.strictObject({ cwd: z.string().min(1).max(4096) });
/** The commit checked out there; null when the directory is in no repository or the repository has no commit. */
export const RepoHeadResultSchema = z.strictObject({ commit: z.string().nullable() });
/** A commit's full object name: never anything git could take for an option or a path. */
const CommitSchema = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full commit id (40 or 64 hex digits)");
export const RepoDiffParamsSchema = z.strictObject({ cwd: z.string().min(1).max(4096), base: CommitSchema });
export const RepoDiffResultSchema = z.strictObject({
  /** `git diff BASE`: committed and not, against the base; untracked files are not in it. */
  diff: z.string(),
  /** The diff was longer than a frame carries: `diff` is its first whole lines. */
  cut: z.boolean(),
  /** Files there that git does not track and does not ignore, which the diff leaves out (the first 100). */
  untracked: z.array(z.string().max(4096)).max(100),
});

/** venom-mux's own methods; only the repository's are management (owner-only, as daemon/stop and restart are). */
export const PaneMethods = {
  "pane/new": { direction: "client", management: false, params: PaneNewParamsSchema, result: PaneInfoSchema },
  "pane/list": { direction: "client", management: false, params: PaneListParamsSchema, result: PaneListResultSchema },
  "pane/send": { direction: "client", management: false, params: PaneSendParamsSchema, result: PaneSendResultSchema },
  "pane/resize": { direction: "client", management: false, params: PaneResizeParamsSchema, result: PaneInfoSchema },
  "pane/capture": { direction: "client", management: false, params: PaneCaptureParamsSchema, result: PaneCaptureResultSchema },
  "pane/attach": { direction: "client", management: false, params: PaneAttachParamsSchema, result: PaneAttachResultSchema },
  "pane/detach": { direction: "client", management: false, params: PaneDetachParamsSchema, result: PaneDetachResultSchema },
  "pane/kill": { direction: "client", management: false, params: PaneTargetParamsSchema, result: PaneKillResultSchema },
  "pane/wait": { direction: "client", management: false, params: PaneWaitParamsSchema, result: PaneWaitResultSchema },
  "pane/rename": { direction: "client", management: false, params: PaneRenameParamsSchema, result: PaneInfoSchema },
  "pane/stdin": { direction: "client", management: false, params: PaneStdinParamsSchema, result: PaneStdinResultSchema },
  "repo/head": { direction: "client", management: true, params: RepoHeadParamsSchema, result: RepoHeadResultSchema },
  "repo/diff": { direction: "client", management: true, params: RepoDiffParamsSchema, result: RepoDiffResultSchema },
} as const;

export const PaneOutputSchema = z.strictObject({ attachment: z.string(), data: z.string() });
/** A slow client's queue was dropped; this redraws the whole screen instead (tmux's approach). */
export const PaneRedrawSchema = z.strictObject({ attachment: z.string(), screen: z.string() });
export const PaneExitedSchema = z.strictObject({ attachment: z.string(), pane: PaneInfoSchema });
/** A pipe pane's stdout, base64, to the connection that created it; `eof` once it closed. */
export const PaneStdoutSchema = z.strictObject({ pane: z.string(), data: z.base64(), eof: z.boolean().optional() });

// ── venom-orch: jobs ─────────────────────────────────────────────────────
/** Where a delegated run is: from the process and the relay, never from its screen. */
export const JobStateSchema = z.enum(["starting", "running", "awaiting-approval", "done", "declined", "failed", "cancelled", "timeout"]);
export type JobState = z.infer<typeof JobStateSchema>;

/** A job's progress, sent to the session that launched it (`venom-orch run` prints it on stderr). */
export const AgentEventSchema = z.strictObject({
  job: z.string(),
  /** The pane's label, e.g. "claude-1". */
  name: z.string(),
  state: JobStateSchema,
  /** A relayed approval's label and tool while awaiting approval; the exit code when done. */
  detail: z.string().max(512).optional(),
});

// ── venom-orch: the inbox ────────────────────────────────────────────────
const QuestionIdSchema = z.string().regex(/^q[a-f0-9]{16}$/, "a question id as `venom-orch inbox` lists it");
/** Who answered a question (docs/venom-orch.md, "The inbox"). */
export const AnsweredBySchema = z.enum(["inbox", "terminal", "policy", "autoApprove", "wait-bound", "job-bound", "job-ended"]);
/** A relayed question waiting in venom-orch's inbox. Its text is the asking daemon's and, through it, an agent's: untrusted. */
export const InboxQuestionSchema = z.strictObject({
  id: QuestionIdSchema,
  /** The job's id and label. */
  job: z.string(),
  name: z.string(),
  /** The chain it came through, e.g. "[echo via claude-1 depth 1]". */
  label: z.string().max(256),
  tool: z.string(),
  risk: RiskSchema,
  summary: z.string().max(1024),
  askedAt: z.string(),
});
export const InboxListParamsSchema = z
  .strictObject({
    /** Send this connection `event/inbox` for every question asked or settled, and every job's end, from now on. */
    watch: z.boolean().optional(),
  })
  .optional();
export const InboxListResultSchema = z.strictObject({ questions: z.array(InboxQuestionSchema) });
export const InboxAnswerParamsSchema = z.strictObject({
  id: QuestionIdSchema,
  decision: z.enum(["approve", "deny"]),
  /** Why, for the record (a denial's reason). */
  reason: z.string().max(512).optional(),
});
export const InboxAnswerResultSchema = z.strictObject({ question: InboxQuestionSchema, decision: z.enum(["approve", "deny"]) });
export const InboxDetailsParamsSchema = z.strictObject({ id: QuestionIdSchema });
export const InboxDetailsResultSchema = z.strictObject({
  question: InboxQuestionSchema,
  /** The job's prompt (at most 4 KiB of it) and the last lines of its pane: untrusted. */
  prompt: z.string(),
  paneTail: z.string(),
  /** For an ACP agent's permission request: the tool call as the agent described it (untrusted). */
  acp: z.strictObject({ kind: z.string().nullable(), title: z.string().nullable(), locations: z.array(z.string()) }).optional(),
  /** For a job in a worktree of its own: its branch, and what it changed against its base so far (escaped). */
  worktree: z
    .strictObject({
      path: z.string(),
      branch: z.string(),
      base: z.string(),
      commits: z.array(z.string()),
      stat: z.string(),
      untracked: z.array(z.string()),
    })
    .optional(),
});
/** The inbox's methods: owner only, so no agent answers its own or a sibling's question. */
export const InboxMethods = {
  "inbox/list": { direction: "client", management: true, params: InboxListParamsSchema, result: InboxListResultSchema },
  "inbox/answer": { direction: "client", management: true, params: InboxAnswerParamsSchema, result: InboxAnswerResultSchema },
  "inbox/details": { direction: "client", management: true, params: InboxDetailsParamsSchema, result: InboxDetailsResultSchema },
} as const;
/** What changed in the inbox, to the connections that watch it. */
export const InboxEventSchema = z.strictObject({
  kind: z.enum(["asked", "settled", "job-ended"]),
  /** Questions waiting after this change. */
  waiting: z.number().int(),
  question: InboxQuestionSchema.optional(),
  /** For `settled`: how, and who answered. */
  decision: z.enum(["approve", "deny", "withdrawn"]).optional(),
  by: AnsweredBySchema.optional(),
  /** For `job-ended`: the job and how it ended. */
  job: z.strictObject({ id: z.string(), name: z.string(), state: JobStateSchema }).optional(),
});
/** A question this client was asked (`approval/request` with its `questionId`) was answered elsewhere first. */
export const ApprovalSettledSchema = z.strictObject({
  questionId: z.string().max(64),
  decision: z.enum(["approve", "deny", "withdrawn"]),
  by: AnsweredBySchema,
});

export const Notifications = {
  "event/tool": { direction: "server", params: ToolEventSchema },
  "event/agent": { direction: "server", params: AgentEventSchema },
  "pane/output": { direction: "server", params: PaneOutputSchema },
  "pane/redraw": { direction: "server", params: PaneRedrawSchema },
  "pane/exited": { direction: "server", params: PaneExitedSchema },
  "pane/stdout": { direction: "server", params: PaneStdoutSchema },
  "event/inbox": { direction: "server", params: InboxEventSchema },
  "approval/settled": { direction: "server", params: ApprovalSettledSchema },
} as const;

/** Every request method of venom/1 with its schemas: the core table and each app's. */
export const AllMethods = { ...Methods, ...PaneMethods, ...InboxMethods } as const;
export type AnyMethodName = keyof typeof AllMethods;
