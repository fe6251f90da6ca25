/**
 * The suite's own venom/1 client: raw bytes over a Unix socket or a pair of
 * streams. It must be able to send what a correct client never would (garbage,
 * oversized lines, calls before hello), so it validates nothing it sends and
 * records everything it receives; checks judge what came back.
 */
import { EventEmitter } from "node:events";
import { createConnection } from "node:net";
import type { Readable, Writable } from "node:stream";
import type { ErrorObject, RequestId } from "@venom/proto";
import { fail } from "./failure.js";

/** A JSON-RPC response the peer sent, with the size of its line in bytes. */
export interface Reply {
  id: RequestId | null;
  result?: unknown;
  error?: ErrorObject;
  bytes: number;
}

/** A request the peer sent us (e.g. approval/request). */
export interface PeerRequest {
  id: RequestId;
  method: string;
  params: unknown;
}

/** Where a client reports its traffic: the check's transcript. */
export interface WireLog {
  sent(label: string, text: string): void;
  received(label: string, text: string): void;
  note(text: string): void;
}

/**
 * How a client's gate answers: always the same, or per request (e.g. approve a
 * launch, deny what is relayed); "hold" leaves a question waiting, as a person
 * who has not yet answered does, until answerHeld.
 */
export type Answer = "approve" | "deny" | "hold" | ((params: unknown) => "approve" | "deny" | "hold");

export interface WireOptions {
  label: string;
  log: WireLog;
  /** The answer to each approval/request; without one every request is denied. */
  approve?: Answer;
}

/** venom/1's default frame limit in bytes (spec/design.md, "Wire protocol"): the largest line either side must accept. */
export const FRAME_LIMIT = 1024 * 1024;

/** Lines longer than this are not buffered: the peer is broken, and memory is ours. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const DEFAULT_WAIT_MS = 10_000;
/** A tool call may start a login shell on a loaded machine: far more than a correct daemon needs. */
const CALL_WAIT_MS = 60_000;

export class WireClient {
  readonly replies: Reply[] = [];
  readonly requests: PeerRequest[] = [];
  readonly notifications: { method: string; params: unknown }[] = [];
  /** Every byte the peer sent, counted, whether or not it formed a line. */
  bytesReceived = 0;
  #closed: string | undefined;
  #nextId = 1;
  #parts: Buffer[] = [];
  #pending = 0;
  readonly #changed = new EventEmitter();

  private constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: WireOptions,
  ) {
    this.#changed.setMaxListeners(0);
    input.on("data", (chunk: Buffer) => this.#onData(chunk));
    for (const event of ["end", "close"]) input.on(event, () => this.#markClosed(`closed by the peer (${event})`));
    input.on("error", (error: NodeJS.ErrnoException) => this.#markClosed(`read error ${error.code ?? error.message}`));
    // A peer that closes while we write makes writes fail; that is an answer, not a crash.
    output.on("error", (error: NodeJS.ErrnoException) => options.log.note(`${options.label}: write error ${error.code ?? error.message}`));
  }

  /** Connect to a Unix socket; rejects with the connect error (ENOENT, EACCES, ECONNREFUSED). */
  static connect(path: string, options: WireOptions): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new WireClient(socket, socket, options));
      });
    });
  }

  /** Speak over a pair of streams: a stdio endpoint, or a relay child. */
  static over(input: Readable, output: Writable, options: WireOptions): WireClient {
    return new WireClient(input, output, options);
  }

  #answer(params: unknown): "approve" | "deny" | "hold" {
    const { approve } = this.options;
    return typeof approve === "function" ? approve(params) : (approve ?? "deny");
  }

  /** The approval requests held unanswered, by id. */
  readonly #held: RequestId[] = [];

  get held(): number {
    return this.#held.length;
  }

  /** Answer every held approval request. */
  answerHeld(decision: "approve" | "deny"): void {
    for (const id of this.#held.splice(0)) void this.send({ jsonrpc: "2.0", id, result: { decision } });
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Write raw bytes; resolves false when the peer was gone before they were all written. */
  write(data: string | Buffer): Promise<boolean> {
    if (this.closed || this.output.writableEnded || this.output.destroyed) return Promise.resolve(false);
    const text = typeof data === "string" ? data : data.toString("utf8");
    this.options.log.sent(this.options.label, text.length > 400 ? `${text.slice(0, 200)}… (${Buffer.byteLength(data)} bytes)` : text);
    return new Promise((resolve) => this.output.write(data, (error) => resolve(!error)));
  }

  /** Send one JSON value as one line. */
  send(message: unknown): Promise<boolean> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  /** Send a request and wait for its reply; a connection that closes first, or a reply that never comes, fails the check. */
  async request(method: string, params?: unknown, timeoutMs = method === "tools/call" ? CALL_WAIT_MS : DEFAULT_WAIT_MS): Promise<Reply> {
    const id = this.#nextId++;
    await this.send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    const found = () => this.replies.find((reply) => reply.id === id);
    await this.waitUntil(() => found() !== undefined || this.closed, timeoutMs);
    const reply = found();
    if (reply) return reply;
    if (this.closed) fail(`${this.options.label}: ${this.#closed} before ${method} was answered`);
    fail(`${this.options.label}: no answer to ${method} within ${timeoutMs / 1000}s`);
  }

  /** Resolve true as soon as `condition` holds (checked on every line and on close), false after `timeoutMs`. */
  waitUntil(condition: () => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.#changed.off("change", onChange);
        resolve(value);
      };
      const onChange = () => {
        if (condition()) done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#changed.on("change", onChange);
    });
  }

  /** Wait for the peer to close; true when it did within `timeoutMs`. */
  waitClosed(timeoutMs = DEFAULT_WAIT_MS): Promise<boolean> {
    return this.waitUntil(() => this.closed, timeoutMs);
  }

  close(why = "closed by us"): void {
    this.output.end();
    this.input.destroy();
    this.#markClosed(why);
  }

  #markClosed(why: string): void {
    if (this.closed) return;
    this.#closed = why;
    this.options.log.note(`${this.options.label}: ${why}`);
    this.#changed.emit("change");
  }

  #onData(chunk: Buffer): void {
    this.bytesReceived += chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...this.#parts, chunk.subarray(start, nl)]);
      this.#parts = [];
      this.#pending = 0;
      start = nl + 1;
      this.#onLine(line);
    }
    const rest = chunk.subarray(start);
    this.#pending += rest.length;
    if (this.#pending > MAX_LINE_BYTES) {
      this.close(`dropped by us: the peer sent a line over ${MAX_LINE_BYTES} bytes`);
      return;
    }
    if (rest.length > 0) this.#parts.push(Buffer.from(rest));
    this.#changed.emit("change");
  }

  #onLine(bytes: Buffer): void {
    const text = bytes.toString("utf8");
    this.options.log.received(this.options.label, text);
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text);
    } catch {
      this.options.log.note(`${this.options.label}: the peer sent a line that is not JSON`);
      return;
    }
    if (message === null || typeof message !== "object") return;
    const { id, method } = message as { id?: RequestId | null; method?: unknown };
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) {
      this.requests.push({ id, method, params: message.params });
      const decision = method === "approval/request" ? this.#answer(message.params) : null;
      if (decision === "hold") this.#held.push(id);
      else {
        void this.send(
          decision
            ? { jsonrpc: "2.0", id, result: { decision } }
            : { jsonrpc: "2.0", id, error: { code: -32601, message: `unknown method: ${method.slice(0, 64)}` } },
        );
      }
    } else if (typeof method === "string") {
      this.notifications.push({ method, params: message.params });
    } else if ("result" in message || "error" in message) {
      this.replies.push({ id: id ?? null, result: message.result, error: message.error as ErrorObject | undefined, bytes: bytes.length });
    }
  }
}
