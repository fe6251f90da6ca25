import { isAbsolute } from "node:path";
import {
  type ApprovalGate,
  ApprovalResponseSchema,
  computeGrant,
  type DispatchSession,
  deepest,
  ErrorCode,
  type Grant,
  HelloParamsSchema,
  type Markers,
  PROTOCOL,
  type Principal,
  ProtocolError,
  type Snapshot,
  SUPPORTED_PROTOCOLS,
  type ToolResult,
} from "@venom/proto";
import type { z } from "zod";
import { applyProjectConfig, type Config, ConfigError } from "./config.js";
import type { DelegationRecord } from "./delegations.js";
import { DELEGATE_NOTICE } from "./notices.js";
import { isWithin } from "./path-within.js";
import type { PeerFacts } from "./peer.js";
import type { RpcPeer } from "./rpc.js";
import { recordsNotices, sandboxNotices, UNKNOWN_CONFINEMENT } from "./sandbox/launch.js";
import type { SandboxProfile } from "./sandbox/plan.js";
import { WorkspaceFs } from "./workspace-fs.js";

export type Transport = "socket" | "stdio";

/**
 * Which delegation a delegate acts for, by the strongest evidence: a process
 * can rewrite its environment, not its parentage.
 * - "ancestry": its nearest recorded ancestor (by pid and start time);
 * - "environ": no ancestor is recorded (it left its process tree), but its
 *   environment's VENOM_PARENT is a record's;
 * - "unrecorded": neither; it owns nothing (`record` null).
 * "ancestry" and "environ" are the words of Principal.evidence.
 */
export interface Delegation {
  readonly record: string | null;
  readonly evidence: "ancestry" | "environ" | "unrecorded";
}

/**
 * The record a delegate descends from by ancestry: what its confinement and
 * its agent's home are taken from, never from its environment. Null for the
 * owner and a delegate no ancestor of which is recorded.
 */
export function ancestorRecord(session: { readonly delegation: Delegation | null }): string | null {
  return session.delegation?.evidence === "ancestry" ? session.delegation.record : null;
}

/** A session after hello: who the caller is, what it may do, and where. */
export interface SessionState {
  readonly principal: Principal;
  readonly grant: Grant;
  readonly snapshot: Snapshot;
  /** The workspace's canonical path, as the kernel found it when workspaceDir was opened. */
  readonly workspace: string;
  /**
   * The workspace opened at hello: what the file tools and the project config
   * are read beneath, so what was checked is what is used. The connection
   * closes it when the session ends.
   */
  readonly workspaceDir: WorkspaceFs;
  readonly config: Config;
  readonly label: string;
  /**
   * The delegation this session acts for; null for the owner and a local
   * session (no delegate). What a delegate may see and act on follows from it
   * alone (visibility.ts).
   */
  readonly delegation: Delegation | null;
  /**
   * The Landlock layers of the delegation this session acts in, from its
   * recorded ancestor (never from anything the peer says): whatever a daemon
   * starts for it runs under them too. Empty for the owner and for an
   * unconfined delegation; null when they cannot be known (a peer under
   * no_new_privs, as every confined process is, that descends from no
   * record): then nothing is started for it.
   */
  readonly confinement: readonly SandboxProfile[] | null;
  /**
   * The agent the delegation descends from, from its recorded ancestor (never
   * from anything the peer says): whatever a daemon starts for it gets that
   * agent's allow-listed environment and private home. Null for the owner and
   * for a delegation with no agent on record.
   */
  readonly agent: string | null;
  /**
   * Why the workspace's project config could not be applied, naming the file
   * and key; null when it applied. Such a session keeps its handshake, status
   * and management, but everything the project config would restrict (tool
   * calls, new panes) is refused with this error: see requireProjectConfig.
   */
  readonly projectConfigError: string | null;
}

/**
 * Refuse every tool call of a session whose confinement cannot be known: the
 * daemon is not confined, so whatever it did for such a caller (a read, a
 * write) would be done outside the confinement the caller must keep.
 */
export function requireKnownConfinement(state: SessionState): void {
  if (state.confinement === null) {
    throw new ProtocolError(ErrorCode.OwnerRequired, `refused: ${UNKNOWN_CONFINEMENT}; ${NOTHING_DONE}`, { principal: state.principal });
  }
}

/** What a session whose confinement cannot be known gets. */
const NOTHING_DONE = "Venom does nothing for you: no tool, no pane, no management";

/** Refuse work that a project config would have restricted, when that config is invalid. */
export function requireProjectConfig(state: SessionState): void {
  if (state.projectConfigError !== null) {
    throw new ProtocolError(ErrorCode.InvalidParams, state.projectConfigError, { path: ["workspace"] });
  }
}

export type HelloParams = z.infer<typeof HelloParamsSchema>;

/** How an app reaches the client of a session: the session's gate and its notifications. */
export interface SessionLink {
  /** The session's own gate: the client's for the owner, the relay for a delegate, null for nobody. */
  readonly gate: ApprovalGate;
  notify(method: string, params: unknown): void;
  /** Aborted when the connection closes. */
  readonly closed: AbortSignal;
}

/** A directory the client named, opened; a ProtocolError naming the field when it cannot be. */
function namedDirectory(path: string, field: string): WorkspaceFs {
  // A relative path would be taken from wherever the daemon happened to start.
  if (!isAbsolute(path))
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${field}: not an absolute path`, { path: [field] });
  try {
    return WorkspaceFs.named(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such directory" : code === "ENOTDIR" ? "not a directory" : `cannot be opened (${code})`;
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${field}: ${why}`, { path: [field] });
  }
}

export interface HelloContext {
  app: string;
  transport: Transport;
  peer: PeerFacts;
  /** Extra depth evidence the daemon found (e.g. an ancestor recorded as delegated). */
  observed: { markers: Markers; evidence: string }[];
  snapshot: Snapshot;
  config: Config;
  /** The daemon's own workspace (canonical). */
  workspace: string;
  /** The delegation record of the peer or its nearest recorded ancestor, verified by pid and start time. */
  record?: DelegationRecord;
  /** With no record by ancestry: the id of the record whose VENOM_PARENT the peer's environment carries, if one does. */
  environRecord?: string;
  /** The workspace of the delegation this peer belongs to, when known. */
  parentWorkspace?: string;
  parentGrant?: Grant;
}

/**
 * Turn a hello into a session: check the version, decide the principal from
 * the deeper of what the client claims and what the server observes, pick the
 * workspace, and compute the grant. Nothing the client says can widen it.
 */
export function establishSession(raw: unknown, ctx: HelloContext): SessionState {
  const version = (raw as { protocol?: unknown } | null)?.protocol;
  if (typeof version === "string" && !(SUPPORTED_PROTOCOLS as readonly string[]).includes(version)) {
    throw new ProtocolError(ErrorCode.UnsupportedProtocol, `unsupported protocol; this server speaks ${SUPPORTED_PROTOCOLS.join(", ")}`, {
      supported: [...SUPPORTED_PROTOCOLS],
    });
  }
  const parsed = HelloParamsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String);
    if (path[0] === "protocol" || raw === undefined) {
      throw new ProtocolError(ErrorCode.UnsupportedProtocol, `hello must name a protocol; this server speaks ${PROTOCOL}`, {
        supported: [...SUPPORTED_PROTOCOLS],
      });
    }
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${path.join(".") || "params"}: ${issue?.message ?? "invalid"}`, {
      path,
    });
  }
  const hello = parsed.data;

  const claimed: Markers = hello.delegation
    ? { depth: hello.delegation.depth, parent: hello.delegation.parent }
    : { depth: 0, parent: null };
  const sources = [{ markers: claimed, evidence: "claimed" }, { markers: ctx.peer.environ, evidence: "environ" }, ...ctx.observed].filter(
    (s) => s.markers.depth > 0,
  );
  const decided = deepest(...sources.map((s) => s.markers));
  // Under no_new_privs and descended from no record, a caller may be a confined process that left its process tree
  // and cleared its environment: whatever it claims, it is a delegate, of a delegation nobody knows (confinement null).
  const unknownConfinement = !ctx.record && ctx.peer.noNewPrivs;
  const depth = unknownConfinement ? Math.max(decided.depth, 1) : decided.depth;
  const principal: Principal = {
    kind: depth > 0 ? "delegate" : ctx.transport === "socket" ? "owner" : "local",
    depth,
    parent: decided.parent,
    uid: ctx.peer.uid,
    pid: ctx.peer.pid,
    evidence: [...sources.map((s) => s.evidence), ...(unknownConfinement ? ["no_new_privs"] : [])],
  };

  // The owner may name any existing directory; a delegate only one inside its parent's workspace.
  // Judged by where the opened directory is, so a path flipped to a symlink after the check leads nowhere.
  const root = principal.kind === "delegate" ? (ctx.parentWorkspace ?? ctx.workspace) : ctx.workspace;
  const workspaceDir = hello.workspace ? namedDirectory(hello.workspace, "workspace") : WorkspaceFs.at(root);
  const workspace = workspaceDir.root;
  let configured: { config: Config; error: string | null };
  try {
    if (principal.kind === "delegate" && !isWithin(root, workspace)) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        "invalid params: workspace: a delegate may only name a directory inside its parent's workspace",
        {
          path: ["workspace"],
        },
      );
    }
    configured = projectConfig(ctx.config, workspaceDir);
  } catch (error) {
    workspaceDir.close();
    throw error;
  }
  const { config, error: projectConfigError } = configured;
  const grant = computeGrant({
    principal,
    snapshot: ctx.snapshot,
    policy: config.approval.policy,
    disabledTools: config.tools.disabled,
    noTools: hello.noTools,
    autoApprove: hello.autoApprove,
    parent: ctx.parentGrant,
  });
  // A delegate's questions travel the relay, which adds the chain it came through ("[echo via claude-1 depth 1]").
  const label = `[${ctx.app}]`;
  return {
    principal,
    grant: Object.freeze(grant),
    snapshot: ctx.snapshot.restrict(grant.tools),
    workspace,
    workspaceDir,
    config,
    label,
    delegation: principal.kind === "delegate" ? delegationOf(ctx) : null,
    confinement: ctx.record ? ctx.record.sandbox : ctx.peer.noNewPrivs ? null : [],
    agent: principal.kind === "delegate" ? (ctx.record?.agent ?? null) : null,
    projectConfigError,
  };
}

function delegationOf(ctx: HelloContext): Delegation {
  if (ctx.record) return { record: ctx.record.id, evidence: "ancestry" };
  if (ctx.environRecord) return { record: ctx.environRecord, evidence: "environ" };
  return { record: null, evidence: "unrecorded" };
}

/**
 * The workspace's project config, as a restriction. A bad one does not fail
 * the handshake (the owner must still reach status and stop); it is kept as
 * the session's error, and the strictest policy stands in until it is fixed.
 */
function projectConfig(config: Config, workspace: WorkspaceFs): { config: Config; error: string | null } {
  try {
    return { config: applyProjectConfig(config, workspace), error: null };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { config: { ...config, approval: { ...config.approval, policy: "never" } }, error: error.message };
  }
}

/** What hello tells a session: its confinement, and anything that will refuse what it asks. `records`: the delegation records' directory. */
export function sessionNotices(state: SessionState, records: string): string[] {
  const notices = [...sandboxNotices(state.config), ...recordsNotices(state.config, state.workspace, records)];
  if (state.principal.kind === "delegate") notices.push(DELEGATE_NOTICE);
  if (state.confinement === null) notices.push(`${UNKNOWN_CONFINEMENT}: ${NOTHING_DONE}`);
  else if (state.confinement.length > 0) {
    notices.push(
      `your delegation is confined (${state.confinement.length} Landlock layer${state.confinement.length > 1 ? "s" : ""}): whatever you ask Venom to start runs confined as you are, or more narrowly`,
    );
  }
  if (state.projectConfigError !== null)
    notices.push(`project config not applied, so tool calls and new panes are refused: ${state.projectConfigError}`);
  return notices;
}

/** The session's gate: asks the client over its own connection, when it declared one. */
export function clientGate(rpc: RpcPeer, declared: boolean): ApprovalGate {
  if (!declared) return null;
  return async (request, signal) => {
    const answer = ApprovalResponseSchema.safeParse(await rpc.request("approval/request", request, signal));
    return answer.success ? answer.data.decision : "deny";
  };
}

/**
 * Room a result needs beside its content in one frame: the JSON-RPC envelope,
 * `data` (at most 64 KiB) and an error message (at most 1 KiB).
 */
const RESULT_OVERHEAD = 80 * 1024;

/** A tool's content is bounded by tools.max_output_bytes and always fits one frame with room to spare. */
export function outputBound(config: Config): number {
  return Math.max(1024, Math.min(config.tools.max_output_bytes, config.protocol.max_frame_bytes - RESULT_OVERHEAD));
}

export function dispatchSession<Context>(
  state: SessionState,
  gate: ApprovalGate,
  context: Context,
  onEvent: (event: { callId: string; tool: string; phase: "started" | "finished"; status?: ToolResult["status"] }) => void,
): DispatchSession<Context> {
  return {
    grant: state.grant,
    snapshot: state.snapshot,
    gate,
    label: state.label,
    limits: { maxTimeoutSeconds: state.config.tools.max_timeout_seconds, maxOutputBytes: outputBound(state.config) },
    context,
    onEvent,
  };
}
