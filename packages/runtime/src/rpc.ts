import { isUtf8 } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import {
  bounded,
  diagnosticFor,
  ErrorCode,
  type ErrorObject,
  type Message,
  ProtocolError,
  type RequestId,
  stackFrames,
  terminalSafe,
} from "@venom/proto";
import { DEFAULT_FRAME_LIMIT, FrameTooLarge, LineSplitter } from "./framing.js";

export interface RpcHandlers {
  /**
   * Answer a request, with a value or a promise of one; a thrown (or rejected)
   * ProtocolError becomes its error reply, anything else an internal error.
   */
  request(method: string, params: unknown, id: RequestId): unknown;
  notification?(method: string, params: unknown): void;
  /**
   * A bounded diagnostic for the log: what went wrong, never the payload; for
   * an unexpected error, also where it was thrown (stackFrames, never its message).
   */
  diagnostic?(what: string, frames?: readonly string[]): void;
  closed?(): void;
}

/**
 * How each incoming line is checked before it is routed: a server passes
 * proto's MessageSchema; a CLI client of its own daemon may pass a lighter
 * check (the server validates; the client checks what it prints).
 */
export interface Envelope {
  safeParse(raw: unknown): { success: true; data: Message } | { success: false };
}

export interface RpcOptions {
  envelope: Envelope;
  frameLimit?: number;
  /** Bytes the peer may leave unread before it is treated as stalled and closed. */
  maxQueuedBytes?: number;
}

export class RpcRemoteError extends Error {
  constructor(readonly error: ErrorObject) {
    super(error.message);
  }
  get code(): number {
    return this.error.code;
  }
}

export class RpcClosed extends Error {
  override readonly name = "RpcClosed";
}

/** A request that could never fit one frame: refused before a byte is sent, so nobody waits for an answer that cannot come. */
export class RequestTooLarge extends Error {
  override readonly name = "RequestTooLarge";
}

/**
 * One venom/1 connection, either side: JSON-RPC 2.0, one message per line. A
 * line that is not JSON, not JSON-RPC, or over the frame limit fails closed:
 * one error reply where possible, then this connection (and only it) closes.
 */
export class RpcPeer {
  #nextId = 1;
  readonly #pending = new Map<RequestId, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #splitter: LineSplitter;
  readonly #maxQueued: number;
  readonly #frameLimit: number;
  readonly #envelope: Envelope;
  #closed = false;
  /** The lines sent in this turn of the event loop, written together once it ends, and their length. */
  #turn: string[] = [];
  #turnChars = 0;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable & { destroy?(): void },
    private readonly handlers: RpcHandlers,
    options: RpcOptions,
  ) {
    this.#envelope = options.envelope;
    this.#frameLimit = options.frameLimit ?? DEFAULT_FRAME_LIMIT;
    this.#splitter = new LineSplitter(this.#frameLimit);
    this.#maxQueued = options.maxQueuedBytes ?? 16 * 1024 * 1024;
    input.on("data", (chunk: Buffer) => this.#onData(chunk));
    input.on("end", () => this.close());
    input.on("close", () => this.close());
    input.on("error", () => this.close());
    output.on("error", () => this.close());
  }

  /** Stop reading the input until resume(): what the peer sends meanwhile waits in the kernel's buffers and its own. */
  pause(): void {
    this.input.pause();
  }

  resume(): void {
    this.input.resume();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** What was sent to the peer that it has not taken yet: bytes in the stream, and this turn's characters not yet written to it. */
  get backlog(): number {
    return ((this.output as { writableLength?: number }).writableLength ?? 0) + this.#turnChars;
  }

  /** Call `callback` once the peer has taken everything written so far (at once if it has). */
  onDrain(callback: () => void): void {
    if (this.backlog === 0) queueMicrotask(callback);
    else this.output.once("drain", callback);
  }

  request(method: string, params?: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.#closed) return Promise.reject(new RpcClosed("connection closed"));
    const id = this.#nextId++;
    const message = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    const bytes = Buffer.byteLength(JSON.stringify(message));
    if (bytes >= this.#frameLimit) {
      return Promise.reject(
        new RequestTooLarge(
          `the ${bounded(method, 64)} request is ${bytes} bytes, over the ${this.#frameLimit}-byte frame limit; nothing was sent`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(id);
        reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener("abort", onAbort);
          reject(e);
        },
      });
      this.#send(message);
    });
  }

  notify(method: string, params?: unknown): void {
    if (!this.#closed) this.#send({ jsonrpc: "2.0", method, params });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const { reject } of this.#pending.values()) reject(new RpcClosed("connection closed"));
    this.#pending.clear();
    this.#flush();
    this.output.end?.();
    this.input.destroy();
    this.handlers.closed?.();
  }

  /** Send one error, then close: the fail-closed path. */
  failClosed(error: ProtocolError, id: RequestId | null = null): void {
    if (this.#closed) return;
    this.handlers.diagnostic?.(`closing connection: ${error.message}`);
    this.#send({ jsonrpc: "2.0", id, error: displayable(error) });
    this.close();
  }

  #send(message: object): void {
    if (this.#closed) return;
    if (this.backlog > this.#maxQueued) {
      this.handlers.diagnostic?.("closing connection: peer stopped reading");
      this.close();
      return;
    }
    const line = JSON.stringify(message);
    // Never send what the peer must refuse: a reply over the frame limit becomes an error reply instead.
    if (overFrameLimit(line, this.#frameLimit)) {
      const id = (message as { id?: RequestId }).id;
      this.handlers.diagnostic?.("outgoing message over the frame limit, replaced by an error");
      if (id === undefined) return;
      this.#writeCoalesced(
        `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: "the reply was over the frame limit" } })}\n`,
      );
      return;
    }
    this.#writeCoalesced(`${line}\n`);
  }

  /**
   * Write a line; the lines of one turn of the event loop (a call's events and
   * its reply) leave in one write of one string. Each write wakes the peer:
   * three per call cost the daemon most of its CPU in the RPC floor (docs/benchmarks.md,
   * item 2); and one string is a plain write, where the same lines corked into
   * the stream went out as a writev of each (~6% less daemon CPU per call with
   * 32 clients, in an A/B). close() writes what is waiting before it ends the stream.
   */
  #writeCoalesced(text: string): void {
    if (this.#turn.length === 0) setImmediate(this.#flush);
    this.#turn.push(text);
    this.#turnChars += text.length;
  }

  readonly #flush = (): void => {
    if (this.#turn.length === 0) return;
    const text = this.#turn.join("");
    this.#turn = [];
    this.#turnChars = 0;
    this.output.write(text);
  };

  #onData(chunk: Buffer): void {
    if (this.#closed) return;
    try {
      this.#splitter.push(chunk, (line) => this.#onLine(line));
    } catch (error) {
      if (error instanceof FrameTooLarge) this.failClosed(new ProtocolError(ErrorCode.InvalidRequest, error.message));
      else throw error;
    }
  }

  #onLine(bytes: Buffer): void {
    if (this.#closed) return;
    // Decoding would replace each invalid byte with U+FFFD: a path or a name sent that way would be taken as another.
    if (!isUtf8(bytes)) return void this.failClosed(new ProtocolError(ErrorCode.ParseError, `not UTF-8 (a ${bytes.length}-byte line)`));
    const line = bytes.toString("utf8");
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.failClosed(new ProtocolError(ErrorCode.ParseError, `not JSON (a ${line.length}-character line)`));
      return;
    }
    const parsed = this.#envelope.safeParse(raw);
    if (!parsed.success) {
      const id =
        typeof (raw as { id?: unknown })?.id === "number" || typeof (raw as { id?: unknown })?.id === "string"
          ? (raw as { id: RequestId }).id
          : null;
      this.failClosed(new ProtocolError(ErrorCode.InvalidRequest, "not a JSON-RPC 2.0 message"), id);
      return;
    }
    const message = parsed.data;
    if ("method" in message) {
      if ("id" in message) return void this.#answer(message.id, message.method, message.params);
      try {
        this.handlers.notification?.(message.method, message.params);
      } catch (error) {
        this.handlers.diagnostic?.(diagnosticFor(`notification ${bounded(message.method, 64)}`, error));
      }
      return;
    }
    const waiter = message.id === null ? undefined : this.#pending.get(message.id);
    if (!waiter) {
      this.handlers.diagnostic?.("response to no pending request, ignored");
      return;
    }
    this.#pending.delete(message.id as RequestId);
    if ("error" in message) waiter.reject(new RpcRemoteError(message.error));
    else waiter.resolve(message.result);
  }

  async #answer(id: RequestId, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.handlers.request(method, params, id);
      this.#send({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (error) {
      let protocolError: ProtocolError;
      if (error instanceof ProtocolError) protocolError = error;
      else {
        // The peer is told only the error's class and code; the log also gets where it came from, to find it again.
        protocolError = new ProtocolError(ErrorCode.InternalError, diagnosticFor(bounded(method, 64), error));
        this.handlers.diagnostic?.(protocolError.message, stackFrames(error));
      }
      if (protocolError.closesConnection) this.failClosed(protocolError, id);
      else this.#send({ jsonrpc: "2.0", id, error: displayable(protocolError) });
    }
  }
}

/**
 * Whether a line is over the frame limit in UTF-8. A UTF-16 code unit is at
 * most 3 bytes, so a short line is counted only when it could be over: most
 * lines are far from the limit, and counting them was work on every call.
 */
function overFrameLimit(line: string, limit: number): boolean {
  return line.length * 3 >= limit && Buffer.byteLength(line) >= limit;
}

/** An error as sent: its message often quotes what the peer sent (a target, a path), so it is escaped for a terminal. */
function displayable(error: ProtocolError): ErrorObject {
  const object = error.toObject();
  return { ...object, message: terminalSafe(object.message) };
}
