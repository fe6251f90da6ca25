import { createConnection, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { peerCredentials, socketFd } from "@venom/native/peer";
import {
  type AllMethods,
  type AnyMethodName,
  type ApprovalRequest,
  ErrorCode,
  type HelloResultSchema,
  PROTOCOL,
  ProtocolError,
  parseMarkers,
  type ToolResult,
} from "@venom/proto";
import type { z } from "zod";
import { type Envelope, RpcPeer } from "./rpc.js";

export type HelloResult = z.infer<typeof HelloResultSchema>;

/**
 * What a client checks of what its daemon sends. By default every message and
 * result against proto's schemas (./reply-checks.js, loaded at connect); a CLI
 * command passes lighter checks (cli/replies.ts) so that it starts without
 * loading zod: the daemon has validated the call, and the command reads only
 * what it prints.
 */
export interface ReplyChecks {
  envelope: Envelope;
  hello(raw: unknown): HelloResult;
  approvalRequest(raw: unknown): ApprovalRequest | Promise<ApprovalRequest>;
  result(method: AnyMethodName, raw: unknown): unknown;
  toolResult(raw: unknown): ToolResult;
}

export interface ClientOptions {
  client: { name: string; version: string };
  workspace?: string;
  noTools?: boolean;
  autoApprove?: boolean;
  /**
   * Answers approval requests. Without one the client declares no gate and every approval denies. `signal` is
   * aborted, with the `approval/settled` params as its reason, when the server says the question was answered
   * elsewhere first (venom-orch's inbox): the answer given after that is not used.
   */
  gate?: (request: ApprovalRequest, signal: AbortSignal) => Promise<"approve" | "deny">;
  onEvent?: (method: string, params: unknown) => void;
  /** The connection closed (after hello): the daemon went away, or this client closed it. */
  onClose?: () => void;
  /**
   * How long a request other than `tools/call` (and `pane/wait`, which waits
   * as long as it was asked to) may go unanswered before it fails with
   * RequestTimeout; hello included. Default 20 s; 0 waits forever.
   */
  requestTimeoutMs?: number;
  /** What to check of the daemon's messages; proto's schemas when absent. */
  checks?: ReplyChecks;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

/** The daemon did not answer in time: the request failed, and its late answer, if any, is ignored. */
export class RequestTimeout extends Error {
  override readonly name = "RequestTimeout";
}

/** A request that fails with RequestTimeout after `timeoutMs` (0: never). */
async function timedRequest(rpc: RpcPeer, method: string, params: unknown, timeoutMs: number): Promise<unknown> {
  if (timeoutMs <= 0) return rpc.request(method, params);
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new RequestTimeout(`no answer to ${method} within ${Math.round(timeoutMs / 1000)} s: the daemon is not answering`)),
    timeoutMs,
  );
  try {
    return await rpc.request(method, params, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

export class ForeignServerError extends Error {
  override readonly name = "ForeignServerError";
}

/** Refuse a socket that another uid listens on (SO_PEERCRED), before a byte is sent to it. */
export function assertServerIsUs(socket: Socket, socketPath: string): void {
  // Only the peer module, imported statically: loading the whole of @venom/native when connecting,
  // one more round of module loading after the connect, was about a quarter of a client command's start.
  // It loads nothing native until called, and then its small addon (or koffi where that was not built).
  const { uid } = peerCredentials(socketFd(socket));
  const own = process.geteuid?.() ?? uid;
  if (uid !== own) {
    throw new ForeignServerError(`the server on ${socketPath} runs as uid ${uid}, not as you (uid ${own}): refusing to talk to it`);
  }
}

/** A venom/1 client over a socket or a pair of streams. */
export class VenomClient {
  private constructor(
    readonly rpc: RpcPeer,
    readonly hello: HelloResult,
    private readonly timeoutMs: number,
    private readonly checks: ReplyChecks,
  ) {}

  /**
   * Connect to a daemon's socket. Before a byte is sent, the kernel's word on
   * who listens (SO_PEERCRED) must be this process's own uid: a socket planted
   * by another user never sees a hello, let alone a tool call.
   */
  static async connect(socketPath: string, options: ClientOptions): Promise<VenomClient> {
    const socket = createConnection(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    try {
      assertServerIsUs(socket, socketPath);
    } catch (error) {
      socket.destroy();
      throw error;
    }
    return VenomClient.over(socket, socket, options);
  }

  static async over(input: Readable, output: Writable, options: ClientOptions): Promise<VenomClient> {
    const checks = options.checks ?? (await import("./reply-checks.js")).schemaChecks;
    let closed = false;
    // Questions asked here that the server may settle elsewhere, by their questionId.
    const asked = new Map<string, AbortController>();
    const rpc = new RpcPeer(
      input,
      output,
      {
        request: async (method, params) => {
          if (method !== "approval/request") throw new ProtocolError(ErrorCode.MethodNotFound, `unknown method: ${method}`);
          const request = await checks.approvalRequest(params);
          if (!options.gate) return { decision: "deny" };
          const settled = new AbortController();
          const id = request.questionId;
          if (id !== undefined) asked.set(id, settled);
          try {
            return { decision: await options.gate(request, settled.signal) };
          } finally {
            if (id !== undefined && asked.get(id) === settled) asked.delete(id);
          }
        },
        notification: (method, params) => {
          const id = method === "approval/settled" ? (params as { questionId?: unknown } | null)?.questionId : undefined;
          if (typeof id === "string") asked.get(id)?.abort(params);
          options.onEvent?.(method, params);
        },
        closed: () => {
          closed = true;
          options.onClose?.();
        },
      },
      { envelope: checks.envelope },
    );
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    let hello: HelloResult;
    try {
      hello = checks.hello(
        await timedRequest(
          rpc,
          "hello",
          {
            protocol: PROTOCOL,
            client: options.client,
            ...(options.workspace ? { workspace: options.workspace } : {}),
            approvals: options.gate !== undefined,
            ...(options.autoApprove ? { autoApprove: true } : {}),
            ...(options.noTools ? { noTools: true } : {}),
            ...delegationClaim(),
          },
          timeoutMs,
        ),
      );
    } catch (error) {
      // Nothing more will be said on a connection whose hello failed: close it, so no caller is left holding it open.
      rpc.close();
      throw error;
    }
    if (closed) throw new Error("connection closed after hello");
    return new VenomClient(rpc, hello, timeoutMs, checks);
  }

  /** Call a venom/1 method; the result is checked as this client's ReplyChecks say (proto's schema for it by default). */
  async request<M extends AnyMethodName>(
    method: M,
    params?: z.input<(typeof AllMethods)[M]["params"]>,
  ): Promise<z.infer<(typeof AllMethods)[M]["result"]>> {
    const result = await timedRequest(this.rpc, method, params, this.#timeoutFor(method, params));
    return this.checks.result(method, result) as z.infer<(typeof AllMethods)[M]["result"]>;
  }

  /** pane/wait waits as long as it was asked to (forever without a timeout), plus the usual allowance. */
  #timeoutFor(method: string, params: unknown): number {
    if (method !== "pane/wait" || this.timeoutMs <= 0) return this.timeoutMs;
    const seconds = (params as { timeoutSeconds?: number } | undefined)?.timeoutSeconds;
    return seconds === undefined ? 0 : seconds * 1000 + this.timeoutMs;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutSeconds?: number; callId?: string } = {},
  ): Promise<ToolResult> {
    return this.checks.toolResult(await this.rpc.request("tools/call", { name, arguments: args, ...options }));
  }

  /**
   * Read nothing from the daemon until resume(): a reader slower than the notifications it gets (a pipe pane's stdout)
   * leaves them in the kernel and the daemon, which bounds what it keeps (docs/venom-mux.md, "Pipe panes").
   */
  pause(): void {
    this.rpc.pause();
  }

  resume(): void {
    this.rpc.resume();
  }

  close(): void {
    this.rpc.close();
  }
}

/**
 * This process's own delegation markers, declared in hello: a daemon reads
 * them from a peer's /proc/PID/environ too, but not from a peer that is not
 * dumpable (every Venom daemon, docs/security-model.md "Descriptors"), so a
 * daemon that is a delegate says so itself. A claim can only make its
 * sender a deeper delegate, never the owner.
 */
function delegationClaim(): { delegation?: { depth: number; parent: string | null } } {
  const { depth, parent } = parseMarkers(process.env);
  return depth > 0 ? { delegation: { depth, parent } } : {};
}
