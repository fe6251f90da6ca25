import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import {
  type ApprovalGate,
  bounded,
  CallCancellation,
  type Dispatcher,
  type DispatchSession,
  ErrorCode,
  HelloParamsSchema,
  invalidParams,
  MessageSchema,
  Methods,
  PROTOCOL,
  ProtocolError,
} from "@venom/proto";
import type { z } from "zod";
import type { VenomHome } from "./home.js";
import type { CallLog, Logger } from "./log.js";
import type { PeerFacts } from "./peer.js";
import { type LauncherTable, type RelayLinks, type RelayParams, relayGate } from "./relay.js";
import { RpcPeer } from "./rpc.js";
import {
  clientGate,
  dispatchSession,
  establishSession,
  type HelloContext,
  requireKnownConfinement,
  requireProjectConfig,
  type SessionLink,
  type SessionState,
  sessionNotices,
  type Transport,
} from "./session.js";

/** A method an app adds beside venom/1's own (`pane/*`, `agent/*`); its schema lives in proto. */
export interface AppMethod<Context> {
  params: z.ZodType;
  /** Owner-only: refused to delegates and over stdio. */
  management: boolean;
  handle(params: unknown, session: ConnectionSession<Context>): Promise<unknown>;
}

/** What a connection asks of the daemon that owns it. */
export interface ConnectionHost<Context> {
  readonly app: string;
  readonly server: { name: string; version: string };
  /** Where owner-only methods must be run from, said when a delegate is refused. */
  readonly outside: string;
  readonly instance: string;
  readonly logger: Logger;
  /** The line each tool call leaves (the tool, its status, how long it took). */
  readonly logCall: CallLog;
  readonly dispatcher: Dispatcher<Context>;
  readonly frameLimit: number;
  readonly appMethods: Readonly<Record<string, AppMethod<Context>>>;
  readonly home: VenomHome;
  readonly launchers: LauncherTable;
  readonly relayLinks: RelayLinks;
  helloContext(transport: Transport, peer: PeerFacts): HelloContext;
  createContext(state: SessionState, link: SessionLink): Context;
  relayed(params: RelayParams, signal: AbortSignal): Promise<"approve" | "deny">;
  disposeContext(context: Context): void;
  status(): unknown;
  stop(): void;
  restart(whenIdle: boolean): void;
  callStarted(): void;
  callFinished(): void;
}

export interface ConnectionSession<Context> {
  readonly state: SessionState;
  readonly context: Context;
  readonly rpc: RpcPeer;
  /** Where this session's approvals go (the relay, for a delegate). */
  readonly gate: ApprovalGate;
  /** Aborted when the connection closes. */
  readonly closed: AbortSignal;
}

/** A session as its connection holds it: with what the dispatcher knows of it, made once at hello. */
interface LiveSession<Context> extends ConnectionSession<Context> {
  readonly dispatch: DispatchSession<Context>;
}

const MAX_CALLS_PER_CONNECTION = 16;
/** A peer that has not said hello by then is closed: a silent connection must not hold a slot. */
export const HELLO_DEADLINE_MS = 5_000;

/** One client connection: hello first, then venom/1 methods under the session's grant. */
export class Connection<Context> {
  readonly rpc: RpcPeer;
  #session: LiveSession<Context> | null = null;
  readonly #calls = new Map<string, CallCancellation>();
  readonly #closed = new AbortController();
  readonly #helloDeadline: NodeJS.Timeout;

  constructor(
    private readonly host: ConnectionHost<Context>,
    private readonly transport: Transport,
    private readonly peer: PeerFacts,
    input: Readable,
    output: Writable,
    onClosed: () => void,
  ) {
    this.rpc = new RpcPeer(
      input,
      output,
      {
        request: (method, params) => this.#request(method, params),
        diagnostic: (what, frames) => host.logger.warn({ peerPid: peer.pid, ...(frames ? { frames } : {}) }, bounded(what)),
        closed: () => {
          clearTimeout(this.#helloDeadline);
          // A closed connection cancels its calls: nobody is left to receive them.
          for (const cancellation of this.#calls.values()) cancellation.cancel();
          this.#closed.abort();
          this.#disposeWhenIdle();
          onClosed();
        },
      },
      { envelope: MessageSchema, frameLimit: host.frameLimit },
    );
    const deadline = setTimeout(() => {
      if (!this.#session) this.rpc.failClosed(new ProtocolError(ErrorCode.HelloRequired, `no hello within ${HELLO_DEADLINE_MS / 1000} s`));
    }, HELLO_DEADLINE_MS);
    deadline.unref();
    this.#helloDeadline = deadline;
  }

  /**
   * Release the session's context only once no call can still use it: a
   * workspace fd closed under a running call could be reused by another open.
   */
  #disposeWhenIdle(): void {
    if (this.rpc.closed && this.#calls.size === 0 && this.#session && !this.#disposed) {
      this.#disposed = true;
      this.host.disposeContext(this.#session.context);
      this.#session.state.workspaceDir.close();
    }
  }
  #disposed = false;
  /** Until hello's answer is on the wire; null once it is. */
  #greeted: Promise<void> | null = null;

  /**
   * A name for a call whose client chose none, unique among this connection's
   * running calls: a random prefix drawn once per connection and a count (a
   * UUID for every call was a visible share of the RPC floor, docs/benchmarks.md).
   */
  #newCallId(): string {
    let callId: string;
    do callId = `${this.#callPrefix}.${++this.#callCount}`;
    while (this.#calls.has(callId));
    return callId;
  }
  readonly #callPrefix = randomUUID();
  #callCount = 0;

  get activeCalls(): number {
    return this.#calls.size;
  }

  /** A request's answer, or a promise of it; what it throws is the error reply. */
  #request(method: string, params: unknown): unknown {
    const session = this.#session;
    if (method === "hello") {
      if (session) throw new ProtocolError(ErrorCode.InvalidRequest, "hello was already sent on this connection");
      return this.#hello(params);
    }
    if (!session) throw new ProtocolError(ErrorCode.HelloRequired, `hello required first (protocol ${PROTOCOL})`);
    // A request pipelined right behind hello waits until hello's answer is on the wire, so nothing precedes it.
    if (this.#greeted) return this.#greeted.then(() => this.#route(session, method, params));
    return this.#route(session, method, params);
  }

  #route(session: LiveSession<Context>, method: string, params: unknown): unknown {
    const spec = (Methods as Record<string, { direction: string; management: boolean; params: z.ZodType }>)[method];
    const app = this.host.appMethods[method];
    if (!(spec && spec.direction === "client") && !app) {
      throw new ProtocolError(ErrorCode.MethodNotFound, `unknown method: ${bounded(method, 64)}`);
    }
    const parsed = (app?.params ?? spec?.params)?.safeParse(params);
    if (parsed && !parsed.success) throw invalidParams(parsed.error.issues);
    const value = parsed?.data;
    const management = app ? app.management : (spec?.management ?? true);
    if (management) this.#checkManagement(method, session, value);
    // Management is always worth a line; everything else (a keystroke is a pane/send) only at debug level.
    this.host.logger[management ? "info" : "debug"](
      { method, principal: session.state.principal.kind, depth: session.state.principal.depth },
      "request",
    );
    if (app) return app.handle(value, session);
    switch (method) {
      case "tools/list":
        return session.state.snapshot.toJSON();
      case "tools/call":
        return this.#call(session, value as z.infer<(typeof Methods)["tools/call"]["params"]>);
      case "tools/cancel": {
        const cancellation = this.#calls.get((value as { callId: string }).callId);
        cancellation?.cancel();
        return { cancelled: cancellation !== undefined };
      }
      case "approval/relay":
        return this.host.relayed(value as RelayParams, this.#closed.signal).then((decision) => ({ decision }));
      case "daemon/status":
        return this.host.status();
      case "daemon/stop":
        setImmediate(() => this.host.stop());
        return { stopping: true };
      case "daemon/restart": {
        const whenIdle = (value as { whenIdle?: boolean } | undefined)?.whenIdle === true;
        setImmediate(() => this.host.restart(whenIdle));
        return { scheduled: true, whenIdle };
      }
      default:
        throw new ProtocolError(ErrorCode.MethodNotFound, `unknown method: ${bounded(method, 64)}`);
    }
  }

  /**
   * Owner-context refusal (conformance/spec/security-model.txt, "Delegated runs"): management needs the owner on
   * the socket. The one exception is a restart when idle, which any depth may ask.
   */
  #checkManagement(method: string, session: ConnectionSession<Context>, value: unknown): void {
    const { principal } = session.state;
    if (this.transport === "stdio") {
      throw new ProtocolError(ErrorCode.OwnerRequired, `refused: ${method} is not offered over stdio; use the daemon's socket`, {
        principal,
      });
    }
    const idleRestart = method === "daemon/restart" && (value as { whenIdle?: boolean } | undefined)?.whenIdle === true;
    if (principal.kind !== "owner" && !idleRestart) {
      throw new ProtocolError(
        ErrorCode.OwnerRequired,
        `refused: ${method} needs the owner context; you are a delegate at depth ${principal.depth} (evidence: ${principal.evidence.join(", ")}). Run it from ${this.host.outside}.`,
        { principal },
      );
    }
  }

  /** The session said hello as the owner (daemon.ts counts these apart from the ordinary slots). */
  get owner(): boolean {
    return this.#session?.state.principal.kind === "owner";
  }

  #hello(params: unknown): unknown {
    const helloContext = this.host.helloContext(this.transport, this.peer);
    const state = establishSession(params, helloContext);
    const hello = HelloParamsSchema.parse(params);
    // A delegate never answers its own approvals, whatever it declared: they go up the relay.
    const gate =
      state.principal.kind === "delegate"
        ? relayGate(this.host, helloContext.record, state.principal.depth)
        : clientGate(this.rpc, hello.approvals === true);
    const closed = this.#closed.signal;
    let context: Context;
    try {
      context = this.host.createContext(state, { gate, closed, notify: (method, p) => this.rpc.notify(method, p) });
    } catch (error) {
      state.workspaceDir.close();
      throw error;
    }
    const dispatch = dispatchSession(state, gate, context, (event) => this.rpc.notify("event/tool", event));
    this.#session = { state, context, rpc: this.rpc, gate, closed, dispatch };
    this.#greeted = new Promise((resolve) =>
      setImmediate(() => {
        this.#greeted = null;
        resolve();
      }),
    );
    this.host.logger.info(
      {
        principal: state.principal.kind,
        depth: state.principal.depth,
        evidence: state.principal.evidence,
        peerPid: this.peer.pid,
        tools: state.grant.tools.length,
      },
      "session established",
    );
    return {
      protocol: PROTOCOL,
      server: this.host.server,
      instance: this.host.instance,
      principal: state.principal,
      grant: state.grant,
      workspace: state.workspace,
      snapshot: state.snapshot.toJSON(),
      methods: [
        ...Object.entries(Methods)
          .filter(([name, m]) => m.direction === "client" && name !== "hello")
          .map(([name]) => name),
        ...Object.keys(this.host.appMethods),
      ],
      notices: sessionNotices(state, this.host.home.delegations),
    };
  }

  async #call(
    session: LiveSession<Context>,
    params: { name: string; arguments: Record<string, unknown>; timeoutSeconds?: number | undefined; callId?: string | undefined },
  ) {
    requireKnownConfinement(session.state);
    requireProjectConfig(session.state);
    if (this.#calls.size >= MAX_CALLS_PER_CONNECTION) {
      throw new ProtocolError(ErrorCode.Busy, `busy: at most ${MAX_CALLS_PER_CONNECTION} calls at once per connection`);
    }
    const callId = params.callId ?? this.#newCallId();
    if (this.#calls.has(callId))
      throw new ProtocolError(ErrorCode.InvalidParams, "invalid params: callId: already in use", { path: ["callId"] });
    const cancellation = new CallCancellation();
    this.#calls.set(callId, cancellation);
    this.host.callStarted();
    const started = Date.now();
    try {
      const result = await this.host.dispatcher.dispatch(session.dispatch, {
        name: params.name,
        arguments: params.arguments,
        callId,
        timeoutSeconds: params.timeoutSeconds,
        cancellation,
      });
      this.host.logCall(params.name, result.status, Date.now() - started);
      return result;
    } finally {
      this.#calls.delete(callId);
      this.host.callFinished();
      this.#disposeWhenIdle();
    }
  }
}
