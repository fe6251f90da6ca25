import { type ApprovalGate, approvalWithoutAsking, askApproval } from "./approval.js";
import type { CallCancellation } from "./cancellation.js";
import { ErrorCode } from "./codes.js";
import { bounded, diagnosticFor } from "./diagnostics.js";
import { invalidParams, ProtocolError } from "./errors.js";
import type { Snapshot } from "./snapshot.js";
import { cutMiddle, escapedNote, terminalSafe, terminalShown } from "./terminal-text.js";
import type { ToolCall, ToolDefinition } from "./tools.js";
import type { Grant, Risk, ToolResult } from "./wire.js";

/** Everything the dispatcher knows about the session a call belongs to. */
export interface DispatchSession<Context> {
  readonly grant: Grant;
  readonly snapshot: Snapshot;
  readonly gate: ApprovalGate;
  /** Shown in every approval prompt, e.g. "[echo]" or "[echo via claude-1 depth 1]". */
  readonly label: string;
  /** No person is waiting on this call (background work): the policy answers alone. */
  readonly unattended?: boolean;
  readonly limits: { maxTimeoutSeconds: number; maxOutputBytes: number };
  readonly context: Context;
  onEvent?(event: { callId: string; tool: string; phase: "started" | "finished"; status?: ToolResult["status"] }): void;
}

export interface DispatchRequest {
  name: string;
  arguments: unknown;
  callId: string;
  timeoutSeconds?: number | undefined;
  /** Cancelled by the caller; the dispatcher adds the deadline itself. */
  cancellation: CallCancellation;
}

/** A validated call on its way to a tool, as decorators see it. */
export interface PreparedCall<Context> {
  readonly definition: ToolDefinition<unknown, Context>;
  readonly input: unknown;
  readonly callId: string;
  readonly risk: Risk;
  readonly summary: string;
  readonly timeoutSeconds: number;
  readonly signal: AbortSignal;
  readonly session: DispatchSession<Context>;
}

/** Runs around a call and may deny it before execution by returning a result instead of calling next. */
export type Decorator<Context> = (call: PreparedCall<Context>, next: () => Promise<ToolResult>) => Promise<ToolResult>;

const MAX_SUMMARY_CHARS = 512;

/** A summary as an approval carries it: escaped, cut in the middle, and saying how many characters it escaped, if any. */
function shownSummary(summary: string): string {
  const shown = terminalShown(summary);
  const cut = cutMiddle(shown.text, MAX_SUMMARY_CHARS);
  return shown.escaped > 0 ? `${cut}\n(${escapedNote(shown.escaped)})` : cut;
}
const MAX_DATA_CHARS = 64 * 1024;

export function denied(message: string): ToolResult {
  return { status: "denied", content: "", error: { message: bounded(message, 512), retry: "allowed" } };
}

/**
 * The one route to a tool (RFC 0008, "Canonical interception"): check the name
 * against the session's snapshot and grant, validate the input, pass the call
 * through the approval gate and the app's decorators (each can deny before
 * execution), run the tool under an AbortSignal with a deadline, and bound what
 * comes back. Anything thrown becomes a bounded diagnostic without the thrown value.
 */
export class Dispatcher<Context> {
  readonly #decorators: readonly Decorator<Context>[];

  constructor(decorators: readonly Decorator<Context>[] = []) {
    this.#decorators = Object.freeze([approvalGate as Decorator<Context>, ...decorators]);
  }

  dispatch(session: DispatchSession<Context>, request: DispatchRequest): Promise<ToolResult> {
    let call: Call<Context>;
    try {
      call = prepare(session, request);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#execute(call);
  }

  async #execute(call: Call<Context>): Promise<ToolResult> {
    const { session, definition } = call;
    const deadline = setTimeout(expire, call.timeoutSeconds * 1000, call);
    session.onEvent?.({ callId: call.callId, tool: definition.name, phase: "started" });
    let result: ToolResult;
    try {
      result = await this.#run(call, 0);
    } finally {
      clearTimeout(deadline);
    }
    const final = finish(definition, result, session.limits.maxOutputBytes);
    session.onEvent?.({ callId: call.callId, tool: definition.name, phase: "finished", status: final.status });
    return final;
  }

  async #run(call: Call<Context>, index: number): Promise<ToolResult> {
    const decorator = this.#decorators[index];
    try {
      if (decorator) return await decorator(call, () => this.#run(call, index + 1));
      return withStatus(await call.definition.run(call.input, new RunningCall(call)));
    } catch (thrown) {
      return failure(call, decorator ? "decorator" : `tool ${call.definition.name}`, thrown);
    }
  }
}

/**
 * Everything that can refuse a call before anyone is asked: the name against
 * the session's snapshot and grant, the input against the tool's schema, the
 * call's options against what the tool takes (precheck).
 */
function prepare<Context>(session: DispatchSession<Context>, request: DispatchRequest): Call<Context> {
  const definition = session.snapshot.get(request.name) as ToolDefinition<unknown, Context> | undefined;
  if (!definition || !session.grant.tools.includes(request.name)) {
    throw new ProtocolError(ErrorCode.ToolNotGranted, `tool not in this session's snapshot or grant: ${bounded(request.name, 64)}`, {
      tools: session.grant.tools,
    });
  }
  const parsed = definition.input.safeParse(request.arguments ?? {});
  if (!parsed.success) throw invalidParams(parsed.error.issues, ["arguments"]);
  const input = parsed.data;
  definition.precheck?.(input, session.context);
  const ceiling = session.limits.maxTimeoutSeconds;
  const timeoutSeconds = Math.min(request.timeoutSeconds ?? ceiling, ceiling);
  return new Call(definition, input, request.callId, timeoutSeconds, session, request.cancellation);
}

function expire(call: Call<unknown>): void {
  call.expire();
}

/**
 * A prepared call. Its signal is made only if a decorator, the approval or the
 * tool asks for it, and its summary only if someone reads it (the approval
 * prompt): most calls need neither.
 */
class Call<Context> implements PreparedCall<Context> {
  readonly risk: Risk;
  readonly #cancellation: CallCancellation;
  #summary: string | undefined;

  constructor(
    readonly definition: ToolDefinition<unknown, Context>,
    readonly input: unknown,
    readonly callId: string,
    readonly timeoutSeconds: number,
    readonly session: DispatchSession<Context>,
    cancellation: CallCancellation,
  ) {
    // A risk function that throws is treated as the riskiest answer its effect allows.
    this.risk = guard((): Risk => definition.risk(input, session.context), definition.effect === "mutating" ? "process" : "secret-read");
    this.#cancellation = cancellation;
    Object.freeze(this);
  }

  get summary(): string {
    // Escaped for the terminal it is shown on, and cut in the middle: a long command cannot hide its end.
    this.#summary ??= shownSummary(guard(() => this.definition.summarize(this.input, this.session.context), this.definition.name));
    return this.#summary;
  }

  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }

  get aborted(): boolean {
    return this.#cancellation.aborted;
  }

  expire(): void {
    this.#cancellation.expire(this.timeoutSeconds);
  }
}

/** What a tool's run() sees of its call. */
class RunningCall<Context> implements ToolCall<Context> {
  readonly callId: string;
  readonly timeoutSeconds: number;
  readonly context: Context;
  readonly risk: Risk;
  readonly #call: Call<Context>;

  constructor(call: Call<Context>) {
    this.callId = call.callId;
    this.timeoutSeconds = call.timeoutSeconds;
    this.context = call.session.context;
    this.risk = call.risk;
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }
}

/**
 * A tool's outcome as a result: "ok" unless it said otherwise. Built field by
 * field, not spread: a spread made a new hidden class for every call, and
 * every later look at the result went megamorphic (docs/benchmarks.md, the RPC floor).
 */
function withStatus(outcome: Omit<ToolResult, "status"> & { status?: ToolResult["status"] }): ToolResult {
  const result: ToolResult = { status: outcome.status ?? "ok", content: outcome.content };
  if (outcome.data !== undefined) result.data = outcome.data;
  if (outcome.error !== undefined) result.error = outcome.error;
  return result;
}

/** A risk or summary function that throws must not crash the dispatcher. */
function guard<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function failure<Context>(call: Call<Context>, where: string, thrown: unknown): ToolResult {
  const message = diagnosticFor(where, thrown);
  if (call.aborted) {
    // Cancellation does not prove a mutating operation had no effect (RFC 0008).
    return call.definition.effect === "mutating"
      ? {
          status: "uncertain",
          content: "",
          error: { message: `${message}; the call was interrupted and may have taken effect`, retry: "forbidden" },
        }
      : { status: "cancelled", content: "", error: { message, retry: "allowed" } };
  }
  const replay = guard(() => call.definition.replayOf(call.input), "unsafe" as const);
  return { status: "failed", content: "", error: { message, retry: replay === "unsafe" ? "forbidden" : "allowed" } };
}

/** Bound the content and data, and keep `uncertain` to its contract. */
function finish(definition: ToolDefinition, result: ToolResult, maxOutputBytes: number): ToolResult {
  const out: ToolResult = { status: result.status, content: fitEncoded(result.content, maxOutputBytes) };
  if (result.data !== undefined) {
    out.data = JSON.stringify(result.data).length <= MAX_DATA_CHARS ? result.data : { omitted: "data over the size limit" };
  }
  if (result.error) out.error = { message: bounded(terminalSafe(result.error.message), 1024), retry: result.error.retry };
  if (out.status === "uncertain") {
    if (definition.effect !== "mutating") out.status = "failed";
    else out.error = { message: out.error?.message ?? "outcome unknown", retry: "forbidden" };
  }
  return out;
}

/**
 * Bound text as it will travel: its JSON-encoded UTF-8 size, which is what
 * counts against a frame (a newline costs two bytes, a control byte six).
 * Keeps the head (or the tail, for output whose end matters) and says it cut.
 */
export function fitEncoded(text: string, max: number, keep: "head" | "tail" = "head"): string {
  const encoded = (t: string) => Buffer.byteLength(JSON.stringify(t));
  if (encoded(text) <= max) return text;
  const note =
    keep === "head"
      ? `\n[output cut: ${Buffer.byteLength(text)} bytes, about ${max} kept]`
      : `[output cut: ${Buffer.byteLength(text)} bytes, the last ${max} or so kept]\n`;
  const join = (part: string) => (keep === "head" ? part + note : note + part);
  let part = keep === "head" ? text.slice(0, max) : text.slice(-max);
  while (part.length > 0 && encoded(join(part)) > max) {
    const length = Math.floor((part.length * max) / encoded(join(part))) - 8;
    part = keep === "head" ? part.slice(0, Math.max(0, length)) : part.slice(part.length - Math.max(0, length));
  }
  return join(part);
}

/**
 * The approval gate: the server decides whether to ask, per call, with the exact
 * tool name and a bounded summary; a denial, a cancellation and a missing gate all deny.
 */
const approvalGate: Decorator<unknown> = (call, next) => {
  const { grant, gate, label, unattended } = call.session;
  const early = approvalWithoutAsking(grant, gate, call.risk, call.definition.name, unattended);
  if (early !== "ask") return early.allowed ? next() : Promise.resolve(denied(early.reason));
  const request = { callId: call.callId, tool: call.definition.name, summary: call.summary, risk: call.risk, label };
  return askApproval(grant, gate, request, call.signal, unattended).then((outcome) => (outcome.allowed ? next() : denied(outcome.reason)));
};
