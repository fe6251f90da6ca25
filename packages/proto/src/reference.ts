import { z } from "zod";
import { ErrorCode, Methods, Notifications, PaneMethods, PROTOCOL, ToolResultSchema } from "./wire.js";

const ERROR_MEANINGS: Record<number, [string, string]> = {
  [ErrorCode.ParseError]: ["not JSON", "closed"],
  [ErrorCode.InvalidRequest]: ["not a JSON-RPC request, or a frame over the limit", "closed"],
  [ErrorCode.MethodNotFound]: ["unknown method", "open"],
  [ErrorCode.InvalidParams]: ["invalid params; `data.path` names the field", "open"],
  [ErrorCode.InternalError]: ["internal error: a bounded diagnostic, never the thrown value", "open"],
  [ErrorCode.HelloRequired]: ["hello required first", "closed"],
  [ErrorCode.UnsupportedProtocol]: ["unsupported protocol; `data.supported` lists versions", "closed"],
  [ErrorCode.OwnerRequired]: ["refused: needs the owner context (`data.principal` says who you are)", "open"],
  [ErrorCode.DepthLimit]: ["refused: delegation depth limit", "open"],
  [ErrorCode.ToolNotGranted]: ["tool not in this session's snapshot or grant", "open"],
  [ErrorCode.Busy]: ["busy: a limit of this connection or daemon was reached", "open"],
};

function schemaBlock(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return ["```json", JSON.stringify(json, null, 2), "```"].join("\n");
}

/** docs/protocol.md, generated from the schemas: the reference is never written twice. */
export function protocolReference(): string {
  const out: string[] = [
    `# ${PROTOCOL} protocol reference`,
    "",
    "<!-- Generated from packages/proto/src/wire.ts by `pnpm gen:docs`; do not edit by hand. -->",
    "",
    "Transport: a Unix socket at `$VENOM_HOME/state/<app>.sock` (mode 0600 in a 0700 directory), or stdio for one-shot clients. Framing: JSON-RPC 2.0, one message per line, UTF-8, at most 1 MiB a line by default. The first request must be `hello`.",
    "",
    "## Error codes",
    "",
    "| code | meaning | connection |",
    "| --- | --- | --- |",
    ...Object.entries(ERROR_MEANINGS).map(([code, [meaning, connection]]) => `| ${code} | ${meaning} | ${connection} |`),
    "",
    "## Methods",
  ];
  for (const [name, method] of [...Object.entries(Methods), ...Object.entries(PaneMethods)]) {
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
    "`tools/call` answers a tool result; a denial is a result with status `denied`, not a protocol error. `uncertain` is only for mutating tools and always forbids retry.",
    "",
    schemaBlock(ToolResultSchema),
    "",
  );
  return out.join("\n");
}
