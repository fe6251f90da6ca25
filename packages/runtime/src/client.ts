import { createConnection, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import {
  AllMethods,
  type AnyMethodName,
  type ApprovalRequest,
  ApprovalRequestParamsSchema,
  ErrorCode,
  HelloResultSchema,
  PROTOCOL,
  ProtocolError,
  type ToolResult,
  ToolResultSchema,
} from "@venom/proto";
import type { z } from "zod";
import { RpcPeer } from "./rpc.js";

export type HelloResult = z.infer<typeof HelloResultSchema>;

export interface ClientOptions {
  client: { name: string; version: string };
  workspace?: string;
  noTools?: boolean;
  autoApprove?: boolean;
  /** Answers approval requests. Without one the client declares no gate and every approval denies. */
  gate?: (request: ApprovalRequest) => Promise<"approve" | "deny">;
  onEvent?: (method: string, params: unknown) => void;
}

export class ForeignServerError extends Error {
  override readonly name = "ForeignServerError";
}

async function assertServerIsUs(socket: Socket, socketPath: string): Promise<void> {
  // Loaded here, not at import: a CLI command that never connects does not load the native bindings.
  const { peerCredentials, socketFd } = await import("@venom/native");
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
      await assertServerIsUs(socket, socketPath);
    } catch (error) {
      socket.destroy();
      throw error;
    }
    return VenomClient.over(socket, socket, options);
  }

  static async over(input: Readable, output: Writable, options: ClientOptions): Promise<VenomClient> {
    let closed = false;
    const rpc = new RpcPeer(input, output, {
      request: async (method, params) => {
        if (method !== "approval/request") throw new ProtocolError(ErrorCode.MethodNotFound, `unknown method: ${method}`);
        const request = ApprovalRequestParamsSchema.parse(params);
        return { decision: options.gate ? await options.gate(request) : "deny" };
      },
      notification: (method, params) => options.onEvent?.(method, params),
      closed: () => {
        closed = true;
      },
    });
    const hello = HelloResultSchema.parse(
      await rpc.request("hello", {
        protocol: PROTOCOL,
        client: options.client,
        ...(options.workspace ? { workspace: options.workspace } : {}),
        approvals: options.gate !== undefined,
        ...(options.autoApprove ? { autoApprove: true } : {}),
        ...(options.noTools ? { noTools: true } : {}),
      }),
    );
    if (closed) throw new Error("connection closed after hello");
    return new VenomClient(rpc, hello);
  }

  /** Call a venom/1 method; the result is checked against proto's schema for it. */
  async request<M extends AnyMethodName>(
    method: M,
    params?: z.input<(typeof AllMethods)[M]["params"]>,
  ): Promise<z.infer<(typeof AllMethods)[M]["result"]>> {
    const result = await this.rpc.request(method, params);
    return AllMethods[method].result.parse(result) as z.infer<(typeof AllMethods)[M]["result"]>;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutSeconds?: number; callId?: string } = {},
  ): Promise<ToolResult> {
    return ToolResultSchema.parse(await this.rpc.request("tools/call", { name, arguments: args, ...options }));
  }

  close(): void {
    this.rpc.close();
  }
}
