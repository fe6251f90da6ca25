import * as z from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.js";
import { CAPABILITIES } from "./capabilities.js";
import { ErrorCode, PROTOCOL } from "./codes.js";
import { MARKER_DEPTH, MARKER_PARENT } from "./identity.js";
import { wrapMarkdown } from "./markdown-wrap.js";
import { EchoInputSchema, ReferenceTools } from "./reference-tools.js";
import { AllMethods, Notifications, ToolResultSchema } from "./wire.js";

const ERROR_MEANINGS: Record<number, [string, string]> = {
  [ErrorCode.ParseError]: ["not JSON, or not UTF-8", "closed"],
  [ErrorCode.InvalidRequest]: ["not a JSON-RPC request, or a frame over the limit", "closed"],
  [ErrorCode.MethodNotFound]: ["unknown method", "open"],
  [ErrorCode.InvalidParams]: ["invalid params; `data.path` names the field", "open"],
  [ErrorCode.InternalError]: ["internal error: a bounded diagnostic, never the thrown value", "open"],
  [ErrorCode.HelloRequired]: ["hello required first", "closed"],
  [ErrorCode.UnsupportedProtocol]: ["unsupported protocol; `data.supported` lists versions", "closed"],
  [ErrorCode.OwnerRequired]: ["refused: needs the owner context (`data.principal` says who you are)", "open"],
  [ErrorCode.DepthLimit]: ["refused: delegation depth limit", "open"],
  [ErrorCode.ToolNotGranted]: ["tool not in this session's snapshot or grant", "open"],
  [ErrorCode.Busy]: [
    "busy: a limit of this connection or daemon was reached",
    "open; closed when the daemon's connection limit refused the connection itself (id null): 128, and 8 more for a peer with no delegation evidence, so delegates cannot lock the owner out",
  ],
};

function schemaBlock(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return ["```json", JSON.stringify(json, null, 2), "```"].join("\n");
}

/** What each reference tool declares in its snapshot entry and when it asks, beside its schemas. */
const TOOL_CONTRACTS: Record<keyof typeof ReferenceTools, { declares: string; does: string[] }> = {
  echo: {
    declares: "capabilities `[]`, effect `read-only`, replay `safe`; never asks for approval",
    does: ["Returns `text` unchanged as the content."],
  },
  read: {
    declares:
      "capabilities `fs.read`, `secret`; effect `read-only`, replay `safe`; risk `read`, or `secret-read` (asks under `on-risk`) for a secret-like path such as `.env`, a private key or a credential file",
    does: [
      "Reads a UTF-8 file inside the session's workspace. `path` is relative to the workspace; absolute paths and `..` are refused, and no symlink may lead out (also not one swapped in while the read runs).",
      "At most `tools.max_read_bytes` are returned; a read that was cut says so (`data.truncated: true` and a note in the content).",
    ],
  },
  write: {
    declares:
      "capabilities `fs.write`; effect `mutating`, replay `unsafe` (`idempotent` with `expectedSha256`); risk `write` (asks under `on-risk`)",
    does: [
      "Creates or replaces a file inside the workspace atomically: a temp file in the destination directory, then a rename; missing parent directories are created inside the workspace. The same containment as `read`, for every directory it opens or creates.",
      "With `expectedSha256`, a file whose sha256 differs (or a missing file) is not touched: the result is `failed`, and its error message names both the expected hash and the file's actual one (or says the file does not exist). A file over `tools.max_read_bytes` (of which `read` returns no hash) is refused the same way, before it is read, naming its size and the limit.",
      "Content over `tools.max_write_bytes` is refused.",
      'With `encoding: "base64"`, `content` must be base64 as RFC 4648 writes it, padded; anything else is -32602 naming `arguments.content`, before anyone is asked, and nothing is written (`write.test.ts` › "base64 content is written decoded…").',
    ],
  },
  run: {
    declares:
      "capabilities `fs.read`, `fs.write`, `process`, `network`, `env.read`; effect `mutating`, replay `unsafe`; risk `process` (asks under `on-risk`)",
    does: [
      "Runs `argv` without a shell, or `command` with `/bin/bash -lc`, in `cwd` (default: the workspace), in its own process group, with the user's full permissions: it is not sandboxed.",
      "The call's `timeoutSeconds` (at most `tools.max_timeout_seconds`) is a deadline: the whole group is killed at once, and the result is `failed` (not `ok`) with `retry: forbidden`.",
      "`tools/cancel` sends TERM to the group, then KILL after 2 s to whatever remains; the result is `uncertain` with `retry: forbidden` (the command may have had effects).",
      "Combined stdout and stderr are bounded; the tail is kept and a result that was cut says so (`data.truncated: true` and a note in the content).",
      "The process is a delegate: see [Processes a tool starts](#processes-a-tool-starts).",
    ],
  },
};

/** The snapshot of a daemon offering only `echo`, and what its fingerprint is made of. */
function fingerprintExample(): string[] {
  const tools = [
    {
      name: "echo",
      description: "Return the given text unchanged.",
      inputSchema: z.toJSONSchema(EchoInputSchema, { io: "input" }),
      capabilities: [],
      effect: "read-only",
      replay: "safe",
    },
  ];
  const text = canonicalJson(tools);
  return [
    "For a snapshot whose `tools` is the one entry of `echo`, the canonical JSON is:",
    "",
    "```json",
    text,
    "```",
    "",
    `and the fingerprint is \`${sha256Hex(text)}\`.`,
  ];
}

const SESSIONS = [
  "## Sessions",
  "",
  "The first request on a connection is `hello` (schema below); anything else first gets -32001 and the connection closes, an unknown `protocol` gets -32002 listing the supported versions and closes. A second `hello` on the same connection is -32600.",
  "",
  "- `workspace`: an absolute path to an existing directory (a relative one is -32602: it would be taken from wherever the daemon started). Omitted, the session uses the daemon's own workspace. Given, it is opened once, with symlinks followed, and hello's result reports the **canonical real path** of the directory opened as `workspace`; every relative path of the session's tools is relative to it. The daemon's own file access for the session (the project configuration, venom-echo's `read` and `write`) stays beneath the directory opened for the session's life, whatever is later renamed or symlinked at its path. A delegate may only name a directory inside its parent's workspace (-32602 otherwise). The project configuration `.venom/config.toml` of that directory applies to the session, as a restriction only.",
  '- `approvals`: `true` says the client has a gate: it answers `approval/request` (sent by the server, on the same connection) with `{decision: "approve" | "deny"}`. **Omitted means `false`**: the client has no gate, and every call that needs approval is denied without asking (a `denied` tool result), unless `autoApprove` applies.',
  "- `autoApprove`: `true` is the client's own statement that it approves whatever it would be asked; it counts only when no gate can be asked (a client without `approvals`, background work), and never overrides the policy: `never` still denies. **Omitted means `false`**. Project configuration can never add it.",
  "- `noTools`: `true` asks for a session with no tools (an empty snapshot and grant).",
  "- `delegation`: the depth and parent the client claims. The server takes the deeper of the claim and what it observes (the markers in the peer process's environment, a recorded ancestor); a claim never lowers the depth.",
  "",
  "The result says who the server thinks the caller is (`principal`: `owner` over the socket at depth 0, `local` over stdio, `delegate` at depth > 0), what it may do (`grant`: tools, approval `policy`, `autoApprove`, `manage`), the `snapshot` of tools, the `methods` it answers, and `notices`. While no sandbox is active (the default: the Landlock sandbox is opt-in, see docs/security-model.md), `notices` in hello and in `daemon/status` include one saying so (`no sandbox is active`); no notice may claim a sandbox or isolation that the daemon does not enforce. Only the owner may call management methods (`daemon/stop`, `daemon/restart`; a delegate may ask `daemon/restart` with `whenIdle: true`); anyone else gets -32003 with `data.principal`.",
  "",
  "## Pipelining and cancellation",
  "",
  "Requests may be pipelined: a client may send further requests before earlier ones are answered, and the server answers each by its `id`, in whatever order they finish. A `tools/call` runs while later requests on the same connection are read and answered, so `tools/cancel {callId}` sent while a call runs reaches it: give the call a `callId` of your choosing to cancel it. `tools/cancel` answers `{cancelled: true}` when that call was running; the call itself then answers its own result: `uncertain` with `retry: forbidden` for a mutating tool (cancellation does not prove it had no effect), `cancelled` for a read-only one. A cancelled call that was waiting for approval is `denied`. Requests pipelined right behind `hello` are answered after it. While a call waits for approval, the server's `approval/request` arrives on the same connection, interleaved with any replies.",
  "",
  "Events: during a call the server may send `event/tool` notifications (schema below), carrying only the call's identity, tool, phase and status, never its arguments, output or anything secret. Logs (`$VENOM_HOME/logs/`) never hold a call's output or a secret either.",
  "",
  "## Snapshot and fingerprint",
  "",
  "`snapshot` (in hello and from `tools/list`) is `{fingerprint, tools}`: `tools` lists the session's tool descriptors in name order (by UTF-16 code units, as JavaScript's default sort); it never changes during a session. `fingerprint` is the lowercase hex SHA-256 of the UTF-8 bytes of the **canonical JSON** of the `tools` array as sent.",
  "",
  "Canonical JSON is RFC 8785 (JCS): no whitespace; object members sorted by their names as UTF-16 code units, at every level; strings with the minimal JSON escapes (`\\\"`, `\\\\`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`, other control characters as `\\u00xx` in lowercase hex, everything else as itself); numbers as ECMAScript writes them (integers without a fraction or exponent); arrays in their order. For the values a snapshot holds this is exactly JavaScript's `JSON.stringify` of the value with every object's keys sorted.",
  "",
];

const PROCESSES = [
  "## Processes a tool starts",
  "",
  `Every process a tool starts (\`run\`'s command, a pane) is a delegate of the session that started it: its environment carries \`${MARKER_PARENT}\` (\`<instance>/<delegation id>\`) and \`${MARKER_DEPTH}\` (the session's depth plus one), and while it runs a private JSON file in \`$VENOM_HOME/state/delegations/\` records it, naming at least its \`pid\` and the same \`parent\`; the record goes when the process ends. Its environment is the daemon's without any variable whose name ends in \`_API_KEY\` (in any case) and without Venom's own markers, which it gets anew. A process that would run deeper than \`agent.max_delegation_depth\` never starts: the call is refused with -32004 before approval is asked.`,
  "",
  "A call of such a process (or of its descendants) that needs approval is never asked of its own connection: it is asked of the session that started the process, through `approval/relay` when another daemon of the instance owns the record. At most 16 questions of one delegation wait at once; one more is denied at once, without asking anyone, its error naming the bound (between daemons: busy, -32006).",
  "",
  "## Configuration the conformance suite relies on",
  "",
  '`venom-conformance` writes one configuration file: `.venom/config.toml` in a directory of the workspace, with `[approval]` `policy = "never"`, and expects a session naming that directory as its `workspace` to get `grant.policy` `never`. It expects defaults that leave room for its probes: `tools.max_read_bytes` and `tools.max_output_bytes` below 8 MiB (a bounded result must be cut), `tools.max_timeout_seconds` of at least 120, `agent.max_delegation_depth` below 1000 (the deepest depth a hello may claim), and `approval.policy` `on-risk` for the owner.',
  "",
];

/** docs/protocol.md, generated from the schemas: the reference is never written twice. */
export function protocolReference(): string {
  const out: string[] = [
    `# ${PROTOCOL} protocol reference`,
    "",
    "<!-- Generated from packages/proto/src (wire.ts, reference-tools.ts, reference.ts) by `pnpm gen:docs`; do not edit by hand. -->",
    "",
    "Transport: a Unix socket at `$VENOM_HOME/state/<app>.sock` (mode 0600 in a 0700 directory), or stdio for one-shot clients (`serve --stdio`: a daemon of the client's own, for one session). A running daemon is reached over another transport (ssh, say) through `dial-stdio`, which every daemon's program has: run on the daemon's host, it copies bytes between the socket and its own stdin and stdout, reading none of them, so the session is a socket session whose peer is the bridge's process, checked as any peer (docs/security-model.md, \"The stdio bridge\"). Framing: JSON-RPC 2.0, one message per line, UTF-8, at most 1 MiB a line by default. The first request must be `hello`.",
    "",
    ...SESSIONS,
    ...fingerprintExample(),
    "",
    `Capabilities are one of ${CAPABILITIES.map((c) => `\`${c}\``).join(", ")}, each tool's listed in that order.`,
    "",
    "## The reference tools",
    "",
    "A daemon with tools offers some of these four, with these names, arguments and results (venom-echo offers all four). Each answers a [tool result](#tool-result); `data`, when present, is the object shown for the tool.",
  ];
  for (const [name, tool] of Object.entries(ReferenceTools)) {
    const contract = TOOL_CONTRACTS[name as keyof typeof ReferenceTools];
    out.push("", `### \`${name}\``, "", `Declares ${contract.declares}.`, "", ...contract.does.map((line) => `- ${line}`));
    out.push("", "Arguments:", "", schemaBlock(tool.input));
    if (tool.data) out.push("", "Result `data`:", "", schemaBlock(tool.data));
  }
  out.push("", ...PROCESSES);
  out.push(
    "## Error codes",
    "",
    "| code | meaning | connection |",
    "| --- | --- | --- |",
    ...Object.entries(ERROR_MEANINGS).map(([code, [meaning, connection]]) => `| ${code} | ${meaning} | ${connection} |`),
    "",
    "## Methods",
  );
  for (const [name, method] of Object.entries(AllMethods)) {
    out.push(
      "",
      `### \`${name}\``,
      "",
      `Sent by the ${method.direction}.${method.management ? " Management: owner only (a delegate may ask `daemon/restart` with `whenIdle: true`); never over stdio." : ""}`,
      "",
      "Params:",
      "",
      schemaBlock(method.params),
      "",
      "Result:",
      "",
      schemaBlock(method.result),
    );
  }
  out.push("", "## Notifications");
  for (const [name, notification] of Object.entries(Notifications)) {
    out.push("", `### \`${name}\``, "", `Sent by the ${notification.direction}.`, "", schemaBlock(notification.params));
  }
  out.push(
    "",
    "## Tool result",
    "",
    "`tools/call` answers a tool result; a denial is a result with status `denied`, not a protocol error. `uncertain` is only for mutating tools and always forbids retry. A result whose content was cut says so: `data.truncated: true`, or a note in the content naming the cut (`cut`, `truncated`).",
    "",
    schemaBlock(ToolResultSchema),
    "",
  );
  return wrapMarkdown(out.join("\n"));
}
