import * as acp from "@agentclientprotocol/sdk";
import { type ApprovalRequest, terminalLine } from "@venom/proto";
import { PENDING_LIMIT } from "@venom/runtime";
import { untilAborted } from "../abort.js";
import { redactSecrets } from "../redact.js";
import { type Answer, respond, riskOf } from "./permission.js";
import { throttled } from "./throttle.js";

/** What one ACP run needs from the job that hosts it. */
export interface AcpRun {
  /** The job's label, e.g. "claude-1": permission requests are labelled `[claude-1 acp]`. */
  name: string;
  /** The job's workspace: a read leading out of it asks (permission.ts). */
  workspace: string;
  cwd: string;
  prompt: string;
  /** With permissions = "full": the agent's own session modes that turn its prompts off, in order of preference. */
  fullModes: readonly string[] | null;
  /** The venom frame limit: a bigger message closes the agent's connection. */
  maxMessageBytes: number;
  stdio: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };
  client: { name: string; version: string };
  /** Aborted to stop the run (cancel, timeout): the turn is cancelled, pending permissions are answered `cancelled`. */
  signal: AbortSignal;
  /** The person's answer (docs/venom-orch.md, "The inbox"): true when the call is approved. `call` is the tool call as the inbox's details show it. */
  ask(request: ApprovalRequest, call: { kind: string | null; title: string | null; locations: string[] }): Promise<boolean>;
  /** An agent-to-client request was refused. */
  refused(method: string): void;
  /** A progress line: a tool's kind and title, escaped and redacted. */
  progress(line: string): void;
}

export interface AcpOutcome {
  stopReason: acp.StopReason;
  /** The agent's reply (its message text, untrusted), the tail when long. */
  message: string;
  note: string | null;
}

/** The agent's reply kept, at most. */
const MESSAGE_LIMIT = 16 * 1024;
/** Tool kinds remembered by toolCallId, at most (oldest forgotten first), and the longest id remembered. */
const KINDS_LIMIT = 1024;
const TOOL_CALL_ID_LIMIT = 256;
/** Progress lines sent on in a second, at most: the rest are counted into the next one sent. */
const PROGRESS_PER_SECOND = 20;

/** After session/cancel, how long the agent has to end its turn before its pane is stopped. */
const CANCEL_GRACE_MS = 2_000;

/** The agent broke the frame limit and venom-orch closed its connection: that, not the agent's exit after it, is why the turn failed. */
export class FrameLimitError extends Error {
  override readonly name = "FrameLimitError";
}

/**
 * One prompt turn with an ACP agent (conformance/spec/security-model.txt, "Delegated runs", ACP): Venom is a
 * client that grants nothing. It declares no file-system or terminal
 * capability and answers every agent-to-client request with an error; the
 * agent's permission requests go to the launching session's gate with a risk
 * from the tool kind, and are answered allow_once or reject_once only.
 */
export async function runAcp(run: AcpRun): Promise<AcpOutcome> {
  const kinds = new Map<string, acp.ToolKind>();
  /** Permission requests waiting for the gate: a cancel answers them `cancelled`. */
  const pending = new Set<(answer: Answer) => void>();
  let message = "";
  let sessionId: string | null = null;
  let note: string | null = null;

  const refuse = (method: string): never => {
    run.refused(method);
    throw new acp.RequestError(
      -32601,
      `${method} refused: venom-orch declares no file-system, terminal or elicitation capability and refuses every agent-to-client request`,
    );
  };
  const app = acp
    .client({ name: run.client.name })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => permission(params))
    .onNotification(acp.methods.client.session.update, ({ params }) => update(params.update))
    // Every other agent-to-client request (fs/*, terminal/*, elicitation/*, unknown): no typed handler,
    // so none is parsed first; all reach this one refusal, whatever their params.
    .onRequest("*", ({ method }) => refuse(method));
  const connection = app.connect(acp.ndJsonStream(run.stdio.writable, run.stdio.readable, { maxMessageBytes: run.maxMessageBytes }));
  const agent = connection.agent;

  const progress = throttled(run.progress, PROGRESS_PER_SECOND);

  function update(change: acp.SessionUpdate): void {
    if (change.sessionUpdate === "tool_call" || change.sessionUpdate === "tool_call_update") {
      // A longer id is not remembered: each was kept whole, and 1024 ids of a frame's size are a gigabyte.
      if (change.kind && change.toolCallId.length <= TOOL_CALL_ID_LIMIT) remember(change.toolCallId, change.kind);
      if (change.sessionUpdate === "tool_call") progress.line(toolLine(change.kind ?? null, change.title ?? null));
    } else if (change.sessionUpdate === "agent_message_chunk" && change.content.type === "text") {
      message = (message + change.content.text).slice(-MESSAGE_LIMIT);
    }
  }

  function remember(id: string, kind: acp.ToolKind): void {
    kinds.delete(id);
    kinds.set(id, kind);
    if (kinds.size > KINDS_LIMIT) kinds.delete(kinds.keys().next().value as string);
  }

  async function permission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const { toolCall } = params;
    const kind = toolCall.kind ?? kinds.get(toolCall.toolCallId) ?? null;
    // The relay's bound on questions waiting for a person (packages/runtime/src/relay.ts):
    // an agent that sent thousands of requests held gigabytes in venom-orch.
    const answer = run.signal.aborted ? "cancelled" : pending.size >= PENDING_LIMIT ? "deny" : await asked(kind, toolCall);
    const { response, cancelTurn } = respond(answer, params.options);
    if (cancelTurn) {
      note = `${answer === "approve" ? "approved, but the agent offered no allow_once option" : "denied, and the agent offered no reject_once option"}: its turn was cancelled`;
      cancel();
    }
    return response;
  }

  /** The person's answer, through the launching session's gate; a stop answers it `cancelled` meanwhile. */
  function asked(kind: acp.ToolKind | null, toolCall: acp.ToolCallUpdate): Promise<Answer> {
    return new Promise<Answer>((settle) => {
      const resolve = (answer: Answer) => {
        pending.delete(resolve);
        settle(answer);
      };
      pending.add(resolve);
      run
        .ask(
          {
            callId: `acp-${toolCall.toolCallId}`.slice(0, 128),
            tool: `acp ${kind ?? "(no kind)"}`,
            summary: permissionSummary(kind, toolCall),
            risk: riskOf(kind, toolCall, run),
            label: `[${run.name} acp]`,
          },
          shownCall(kind, toolCall),
        )
        .then(
          (allowed) => resolve(allowed ? "approve" : "deny"),
          () => resolve("deny"),
        );
    });
  }

  function cancel(): void {
    if (sessionId) void agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  }

  // A stop (cancel, timeout) answers every pending permission `cancelled` (each leaves the set) and cancels the turn.
  const onStop = () => {
    for (const resolve of pending) resolve("cancelled");
    cancel();
  };
  run.signal.addEventListener("abort", onStop, { once: true });
  // Which request an error answered: the job's note says it in our words, never the agent's.
  let step = "initialize";
  // Until a session exists there is no turn to cancel: a stop ends the wait for an agent that never answers.
  const answered = <T>(request: Promise<T>) => untilAborted(request, run.signal);
  try {
    await answered(
      agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: run.client,
      }),
    );
    step = "session/new";
    const session = await answered(agent.request(acp.methods.agent.session.new, { cwd: run.cwd, mcpServers: [] }));
    sessionId = session.sessionId;
    if (run.fullModes) {
      step = "session/set_mode";
      note = await answered(fullMode(agent, session, run.fullModes));
    }
    run.signal.throwIfAborted();
    step = "session/prompt";
    const turn = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: run.prompt }] });
    const response = await untilStopped(turn, run.signal);
    return { stopReason: response.stopReason, message, note };
  } catch (error) {
    if (error instanceof acp.MessageTooLargeError || (error as { cause?: unknown })?.cause instanceof acp.MessageTooLargeError) {
      throw new FrameLimitError(`the agent sent a message over the ${run.maxMessageBytes}-byte frame limit; its connection was closed`);
    }
    // The agent's own message is its text, not venom-orch's account: the pane (capture, the result's tail) keeps what it said.
    if (error instanceof acp.RequestError) throw new Error(`the agent answered ${step} with error ${error.code}`);
    throw error;
  } finally {
    progress.flush();
    run.signal.removeEventListener("abort", onStop);
    connection.close();
  }
}

/** With permissions = "full": switch the agent into its own mode that asks nothing, when it offers one. */
async function fullMode(agent: acp.ClientContext, session: acp.NewSessionResponse, wanted: readonly string[]): Promise<string | null> {
  const offered = session.modes?.availableModes.map((m) => m.id) ?? [];
  const modeId = wanted.find((id) => offered.includes(id));
  if (!modeId) return "permissions = full, but the agent offers no full-permission mode: its requests are relayed";
  await agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId });
  return null;
}

/**
 * The turn's answer; after a stop the agent has CANCEL_GRACE_MS to end it
 * (stopReason cancelled) before the run gives up on it.
 */
function untilStopped(turn: Promise<acp.PromptResponse>, signal: AbortSignal): Promise<acp.PromptResponse> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => reject(signal.reason), CANCEL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    turn.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    });
  });
}

/** A tool call for a progress line: kind and title only, escaped and redacted. */
function toolLine(kind: acp.ToolKind | null, title: string | null): string {
  return terminalLine(redactSecrets(`tool ${kind ?? "(no kind)"}: ${title ?? "(untitled)"}`), 200);
}

/** Locations of a tool call the inbox's details show, at most. */
const LOCATIONS_SHOWN = 32;

/** The tool call as the inbox's details show it: escaped and redacted like the summary, bounded. */
function shownCall(
  kind: acp.ToolKind | null,
  toolCall: acp.ToolCallUpdate,
): { kind: string | null; title: string | null; locations: string[] } {
  const shown = (text: string, max: number) => terminalLine(redactSecrets(text), max);
  return {
    kind: kind === null ? null : shown(kind, 64),
    title: toolCall.title ? shown(toolCall.title, 1024) : null,
    locations: (toolCall.locations ?? []).slice(0, LOCATIONS_SHOWN).map((l) => shown(l.path, 512)),
  };
}

/** What the person is asked about: the tool's kind, title and locations, escaped and redacted. */
function permissionSummary(kind: acp.ToolKind | null, toolCall: acp.ToolCallUpdate): string {
  const where = (toolCall.locations ?? []).map((l) => l.path).join(", ");
  return terminalLine(redactSecrets(`${kind ?? "(no kind)"}: ${toolCall.title ?? "(untitled)"}${where ? ` at ${where}` : ""}`), 1024);
}
