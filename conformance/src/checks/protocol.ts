import { ErrorCode, SnapshotSchema } from "@venom/proto";
import { type Check, design } from "../check.js";
import { expectError, expectResult } from "../verdict.js";

export const protocolChecks: readonly Check[] = [
  {
    id: "protocol/unknown-method",
    level: "MUST",
    requirement: design("Wire protocol", "| -32601 | unknown method | open |"),
    expected: `a well-formed request for a method the daemon does not have gets error ${ErrorCode.MethodNotFound} and the connection stays open`,
    async run(ctx) {
      const { client } = await ctx.session();
      expectError(await client.request("conformance/no-such-method", {}), ErrorCode.MethodNotFound, "conformance/no-such-method");
      expectResult(await client.request("tools/list"), SnapshotSchema, "tools/list after the unknown method");
      return `error ${ErrorCode.MethodNotFound}; the connection still answers`;
    },
  },
];
