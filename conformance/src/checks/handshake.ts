import { DaemonStatusResultSchema, ErrorCode, PROTOCOL } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import { expect, expectResult } from "../verdict.js";

/** A negation in the same clause: "no sandbox is active", "not sandboxed", "does not isolate". */
const NEGATED = /\b(no|not|never|without|nor|none|isn't|doesn't|cannot)\b/i;
/** A notice's clauses: a claim and its negation are judged together only when they share one. */
const clauses = (notice: string) => notice.split(/[.;:,!?\n]|\bbut\b/i);
const deniesSandbox = (notice: string) => clauses(notice).some((clause) => /sandbox/i.test(clause) && NEGATED.test(clause));

const HANDSHAKE_RULE = securityModel("Network and protocol", "Both transports require the versioned handshake.");
/** How long a connection that says nothing may stay open: "a few seconds" with room for a loaded machine (Venom's daemons: 5 s). */
const IDLE_WAIT_MS = 30_000;

export const handshakeChecks: readonly Check[] = [
  {
    id: "handshake/first-message",
    level: "MUST",
    requirement: HANDSHAKE_RULE,
    also: [design("Wire protocol", "Anything else first: error, close.")],
    expected: `a request before hello gets no result: error ${ErrorCode.HelloRequired} and the connection closes`,
    async run(ctx) {
      const client = await ctx.connect("early");
      return ctx.expectFailClosed(
        client,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        ErrorCode.HelloRequired,
        "tools/list before hello",
      );
    },
  },
  {
    id: "handshake/idle-closed",
    level: "MUST",
    requirement: HANDSHAKE_RULE,
    expected: `a connection that never says hello is closed by the daemon within ${IDLE_WAIT_MS / 1000} s (Venom's daemons: 5 s), so silent connections cannot hold its slots; a new connection is still served`,
    async run(ctx) {
      const client = await ctx.connect("silent");
      const closed = await client.waitClosed(IDLE_WAIT_MS);
      expect(closed, `a connection that never said hello was still open ${IDLE_WAIT_MS / 1000} s later`);
      expect(
        client.replies.every((reply) => reply.result === undefined),
        "the silent connection was sent a result",
      );
      await ctx.assertServing();
      return "the silent connection was closed; a new one is served";
    },
  },
  {
    id: "handshake/version",
    level: "MUST",
    requirement: HANDSHAKE_RULE,
    also: [design("Wire protocol", "Unknown version: error naming the supported ones, close.")],
    expected: `hello with an unknown protocol version gets error ${ErrorCode.UnsupportedProtocol} listing ${PROTOCOL} in data.supported, and the connection closes`,
    async run(ctx) {
      const client = await ctx.connect("future");
      const hello = { protocol: "venom/999", client: { name: "venom-conformance", version: "0" } };
      const outcome = await ctx.expectFailClosed(
        client,
        { jsonrpc: "2.0", id: 1, method: "hello", params: hello },
        ErrorCode.UnsupportedProtocol,
        "hello venom/999",
      );
      const supported = (client.replies[0]?.error?.data as { supported?: unknown } | undefined)?.supported;
      expect(
        Array.isArray(supported) && supported.includes(PROTOCOL),
        `the refusal does not name the supported versions (data.supported: ${JSON.stringify(supported) ?? "absent"})`,
      );
      return `${outcome}; supported: ${JSON.stringify(supported)}`;
    },
  },
  {
    id: "handshake/no-sandbox-notice",
    level: "MUST",
    requirement: rfc0008(
      "Threat boundary",
      "It must warn on first run and in help/health output that no permission or sandbox extension is active.",
    ),
    also: [design("Wire protocol", '`notices` (including "no sandbox is active" while that is true)')],
    expected:
      "hello's notices and daemon/status's notices both say that no sandbox is active (a notice with a negated `sandbox`: no, not, without, never), and no part of a notice claims a sandbox or isolation without negating it",
    async run(ctx) {
      const { client, hello } = await ctx.session();
      const status = expectResult(await client.request("daemon/status"), DaemonStatusResultSchema, "daemon/status");
      for (const [where, notices] of [
        ["hello", hello.notices],
        ["daemon/status", status.notices],
      ] as const) {
        ctx.see(`${where}'s notices`, JSON.stringify(notices));
        expect(notices.some(deniesSandbox), `${where}'s notices do not say that no sandbox is active: ${JSON.stringify(notices)}`);
        const claim = notices
          .flatMap(clauses)
          .find((clause) => /sandbox|isolat|contain(ed|s|ment)\b/i.test(clause) && !NEGATED.test(clause));
        expect(claim === undefined, `${where}'s notices claim a sandbox or isolation: "${claim}"`);
      }
      return "hello and daemon/status both say that no sandbox is active, and claim none";
    },
  },
];
