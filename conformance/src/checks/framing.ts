import { ErrorCode, SnapshotSchema } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import { expectResult } from "../verdict.js";
import { FRAME_LIMIT } from "../wire-client.js";

/** Lines a correct client never sends, each with the error the design assigns to it. */
const MALFORMED: readonly { what: string; bytes: string | Buffer; code: number }[] = [
  { what: "a line that is not JSON", bytes: "this is not json\n", code: ErrorCode.ParseError },
  { what: "invalid UTF-8", bytes: Buffer.from([0xff, 0xfe, 0x7b, 0x0a]), code: ErrorCode.ParseError },
  // Valid JSON but for one byte, which a lenient decoder turns into U+FFFD and serves.
  {
    what: "invalid UTF-8 inside a JSON string",
    bytes: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'), Buffer.from([0xff]), Buffer.from('","method":"tools/list"}\n')]),
    code: ErrorCode.ParseError,
  },
  { what: "JSON that is not JSON-RPC", bytes: '{"jsonrpc":"2.0","id":1,"method":42}\n', code: ErrorCode.InvalidRequest },
  { what: "a JSON-RPC batch", bytes: '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]\n', code: ErrorCode.InvalidRequest },
];

export const framingChecks: readonly Check[] = [
  {
    id: "framing/oversize",
    level: "MUST",
    requirement: securityModel(
      "Network and protocol",
      "Protocol lines, tool arguments, tool output, and provider responses are size bounded.",
    ),
    also: [
      design(
        "Wire protocol",
        "A line over the frame limit (default 1 MiB, config may lower it) or one that is not valid JSON-RPC fails closed: the server answers one error if it can, closes that connection, logs a bounded diagnostic (never the payload), and keeps serving everyone else.",
      ),
    ],
    expected: `a request line over the ${FRAME_LIMIT}-byte frame limit is not served: error ${ErrorCode.InvalidRequest}, that connection closes, other connections are still served`,
    async run(ctx) {
      const { client: bystander } = await ctx.session({ label: "bystander" });
      const { client } = await ctx.session({ label: "oversize" });
      const pad = "a".repeat(2 * FRAME_LIMIT);
      const line = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"${pad}"}}\n`;
      const outcome = await ctx.expectFailClosed(client, line, ErrorCode.InvalidRequest, `a ${line.length}-byte line`);
      expectResult(await bystander.request("tools/list"), SnapshotSchema, "tools/list on a connection opened before");
      await ctx.assertServing();
      return `${outcome}; other connections still served`;
    },
  },
  {
    id: "framing/malformed",
    level: "MUST",
    requirement: securityModel("Network and protocol", "Malformed messages fail closed."),
    also: [
      design(
        "Wire protocol",
        "A line over the frame limit (default 1 MiB, config may lower it) or one that is not valid JSON-RPC fails closed: the server answers one error if it can, closes that connection, logs a bounded diagnostic (never the payload), and keeps serving everyone else.",
      ),
    ],
    expected: `after hello, a line that is not JSON or not UTF-8 (even inside a string) gets ${ErrorCode.ParseError}, JSON that is not one JSON-RPC message gets ${ErrorCode.InvalidRequest}; each closes only its own connection`,
    async run(ctx) {
      const outcomes: string[] = [];
      for (const { what, bytes, code } of MALFORMED) {
        const { client } = await ctx.session({ label: "malformed" });
        outcomes.push(await ctx.expectFailClosed(client, bytes, code, what));
      }
      await ctx.assertServing();
      return `${outcomes.join("; ")}; the daemon still serves new connections`;
    },
  },
];
