import { ErrorCode, SnapshotSchema } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import { expect, expectError, expectResult } from "../verdict.js";

const STDIO_RULE = securityModel(
  "Network and protocol",
  "The stdio endpoint remains available for one-shot local clients and does not support component management.",
);

export const stdioChecks: readonly Check[] = [
  {
    id: "stdio/hello-required",
    level: "MUST",
    requirement: securityModel("Network and protocol", "Both transports require the versioned handshake."),
    also: [design("Wire protocol", "Both require the handshake; stdio never offers management.")],
    expected: `over stdio, a request before hello gets error ${ErrorCode.HelloRequired} and the session ends`,
    async run(ctx) {
      const client = ctx.stdio();
      return ctx.expectFailClosed(
        client,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        ErrorCode.HelloRequired,
        "tools/list before hello over stdio",
      );
    },
  },
  {
    id: "stdio/no-management",
    level: "MUST",
    requirement: STDIO_RULE,
    also: [design("Wire protocol", "Both require the handshake; stdio never offers management.")],
    expected: `over stdio the principal is not the owner, the grant has no management, and daemon/stop gets error ${ErrorCode.OwnerRequired} while the session goes on`,
    async run(ctx) {
      const client = ctx.stdio();
      const hello = await ctx.hello(client);
      expect(hello.principal.kind !== "owner", "hello over stdio names the caller the owner, who may manage the daemon");
      expect(!hello.grant.manage, "hello over stdio grants management");
      expectError(await client.request("daemon/stop"), ErrorCode.OwnerRequired, "daemon/stop over stdio");
      expectResult(await client.request("tools/list"), SnapshotSchema, "tools/list after the refusal");
      return `principal ${hello.principal.kind}, no management; daemon/stop refused with ${ErrorCode.OwnerRequired}`;
    },
  },
];
