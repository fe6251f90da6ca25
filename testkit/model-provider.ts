// A scripted model provider on loopback, the one test double the agent lane uses: the real agent CLIs talk to it as
// to their vendor's API (Anthropic Messages, OpenAI Responses and Chat Completions, streamed or not), so a test drives
// an agent through a file write or a command without a network or a model. Everything it is sent is recorded, so a
// test can assert what reached the endpoint (the key as the auth header, no canary anywhere).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One answer of the model: text, or a call of a tool the request offers, by its name there. */
export type ModelTurn = { text: string } | { tool: string; input: Record<string, unknown> };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ModelProvider {
  /** `http://127.0.0.1:PORT`, what an agent's base URL setting takes (add `/v1` where the agent wants it). */
  url: string;
  requests: RecordedRequest[];
  /** What the model answers from now on, in order (see startModelProvider). */
  script(...turns: ModelTurn[]): void;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

/**
 * Serves the scripted turns on 127.0.0.1 until closed, or for `lifetimeMs` at most. Which turn answers a request is
 * read from the conversation it carries: the number of tool results in it, so the agent's own retries and side
 * requests never advance the script. A request that offers no tools (a title, a summary) is answered with short
 * text; past the script, with "done".
 */
export async function startModelProvider({ lifetimeMs = 600_000 } = {}): Promise<ModelProvider> {
  const requests: RecordedRequest[] = [];
  let turns: readonly ModelTurn[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      answer(req.url ?? "", body, turns, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const timer = setTimeout(() => void close(), lifetimeMs);
  timer.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (...next) => {
      turns = next;
    },
    close,
  };
}

/** The API a request is for, by its path. */
const APIS = [
  { match: /\/messages(\?|$)/, api: anthropic() },
  { match: /\/responses(\?|$)/, api: responses() },
  { match: /\/chat\/completions(\?|$)/, api: chatCompletions() },
];

interface Api {
  /** The tool names offered and the tool results already in the conversation. */
  read(request: any): { tools: string[]; results: number };
  reply(turn: ModelTurn, request: any, res: ServerResponse): void;
}

function answer(path: string, body: string, turns: readonly ModelTurn[], res: ServerResponse): void {
  const api = APIS.find((entry) => entry.match.test(path))?.api;
  let request: any;
  try {
    request = JSON.parse(body);
  } catch {
    request = undefined;
  }
  if (!api || typeof request !== "object" || request === null) {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no such API: ${path}` } }));
    return;
  }
  const { tools, results } = api.read(request);
  let turn: ModelTurn = tools.length === 0 ? { text: "ok" } : (turns[results] ?? { text: "done" });
  if ("tool" in turn && !tools.includes(turn.tool))
    turn = { text: `the scripted tool ${turn.tool} is not offered (offered: ${tools.join(", ")})` };
  api.reply(turn, request, res);
}

let serial = 0;
const id = (prefix: string) => `${prefix}_${++serial}`;

function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const { event, data } of events)
    res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
}

const USAGE = { input_tokens: 10, output_tokens: 10 };

/** Anthropic Messages: content blocks, `tool_use` with `input`; streamed as message/content_block events. */
function anthropic(): Api {
  return {
    read: (request) => ({
      tools: (request.tools ?? []).map((tool: { name: string }) => tool.name),
      results: (request.messages ?? [])
        .flatMap((message: { content: unknown }) => (Array.isArray(message.content) ? message.content : []))
        .filter((block: { type?: string }) => block.type === "tool_result").length,
    }),
    reply(turn, request, res) {
      const block =
        "tool" in turn ? { type: "tool_use", id: id("toolu"), name: turn.tool, input: turn.input } : { type: "text", text: turn.text };
      const stop = "tool" in turn ? "tool_use" : "end_turn";
      const message = { id: id("msg"), type: "message", role: "assistant", model: request.model, stop_sequence: null, usage: USAGE };
      if (!request.stream) return json(res, { ...message, content: [block], stop_reason: stop });
      const start = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
      const delta =
        block.type === "tool_use"
          ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
          : { type: "text_delta", text: block.text };
      sse(res, [
        { event: "message_start", data: { type: "message_start", message: { ...message, content: [], stop_reason: null } } },
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: start } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: USAGE } },
        { event: "message_stop", data: { type: "message_stop" } },
      ]);
    },
  };
}

/** OpenAI Responses: output items, `function_call` with JSON `arguments`; streamed as response.* events. */
function responses(): Api {
  return {
    read: (request) => ({
      tools: (request.tools ?? []).map((tool: { name?: string }) => tool.name).filter(Boolean),
      results: (Array.isArray(request.input) ? request.input : []).filter((item: { type?: string }) =>
        ["function_call_output", "custom_tool_call_output"].includes(item.type ?? ""),
      ).length,
    }),
    reply(turn, request, res) {
      const item =
        "tool" in turn
          ? {
              type: "function_call",
              id: id("fc"),
              call_id: id("call"),
              name: turn.tool,
              arguments: JSON.stringify(turn.input),
              status: "completed",
            }
          : {
              type: "message",
              id: id("msg"),
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: turn.text, annotations: [] }],
            };
      const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };
      const response = { id: id("resp"), object: "response", model: request.model, status: "completed", output: [item], usage };
      if (!request.stream) return json(res, response);
      sse(res, [
        { event: "response.created", data: { type: "response.created", response: { ...response, status: "in_progress", output: [] } } },
        { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: 0, item } },
        ...("text" in turn
          ? [
              {
                event: "response.output_text.delta",
                data: { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: turn.text },
              },
            ]
          : []),
        { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item } },
        { event: "response.completed", data: { type: "response.completed", response } },
      ]);
    },
  };
}

/** OpenAI Chat Completions: `tool_calls` on the assistant message; streamed as chat.completion.chunk lines. */
function chatCompletions(): Api {
  return {
    read: (request) => ({
      tools: (request.tools ?? []).map((tool: { function?: { name: string } }) => tool.function?.name).filter(Boolean),
      results: (request.messages ?? []).filter((message: { role?: string }) => message.role === "tool").length,
    }),
    reply(turn, request, res) {
      const call =
        "tool" in turn ? { id: id("call"), type: "function", function: { name: turn.tool, arguments: JSON.stringify(turn.input) } } : null;
      const finish = call ? "tool_calls" : "stop";
      const base = { id: id("chatcmpl"), created: 0, model: request.model };
      const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
      if (!request.stream) {
        const message = call
          ? { role: "assistant", content: null, tool_calls: [call] }
          : { role: "assistant", content: (turn as { text: string }).text };
        return json(res, { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage });
      }
      const chunk = (delta: unknown, finish_reason: string | null) => ({
        data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] },
      });
      sse(res, [
        chunk(
          call
            ? { role: "assistant", tool_calls: [{ index: 0, ...call }] }
            : { role: "assistant", content: (turn as { text: string }).text },
          null,
        ),
        { data: { ...chunk({}, finish).data, usage } },
        { data: "[DONE]" },
      ]);
    },
  };
}
