import { ErrorCode, PROTOCOL, SnapshotSchema, terminalSafe } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { INVISIBLE } from "../probes.js";
import { expect, expectError, expectResult } from "../verdict.js";
import type { Reply } from "../wire-client.js";

/** What a program could make of a terminal that shows it raw: a title (OSC), a cleared screen, a C1 CSI, a bidi override. */
const CONTROLS = "\u001b]0;owned\u0007\u001b[2J\u009b31m\u202eevil";

/** The strings in an error reply (its message, and anything in its data) holding a character a terminal would act on or show as nothing, raw. */
function rawControls(reply: Reply): string[] {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") strings.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(reply.error);
  return strings.filter((text) => terminalSafe(text) !== text);
}

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
  {
    id: "protocol/error-text-escaped",
    level: "MUST",
    requirement: securityModel(
      "Trust boundaries",
      "Model output, tool arguments, project files, project configuration, skill text, command output, and delegated-agent output are untrusted.",
    ),
    expected:
      "errors about a tool name, a method name and a workspace path that carry terminal controls (ESC sequences, BEL, a C1 CSI, a bidi override) hold none of them raw, in message or data: the daemon escapes or leaves out what the client sent, since clients print errors on a terminal",
    async run(ctx) {
      await expectErrorsEscape(ctx, CONTROLS);
      return "every error escaped or left out the controls";
    },
  },
  {
    id: "protocol/error-invisible-escaped",
    level: "MUST",
    requirement: securityModel(
      "Trust boundaries",
      "Model output, tool arguments, project files, project configuration, skill text, command output, and delegated-agent output are untrusted.",
    ),
    expected:
      "errors about a tool name, a method name and a workspace path that carry characters a terminal shows as nothing (Unicode tag characters, a zero-width space, a word joiner, a soft hyphen: every format and default-ignorable character) hold none of them raw, in message or data",
    async run(ctx) {
      await expectErrorsEscape(ctx, INVISIBLE);
      return "every error escaped or left out the invisible characters";
    },
  },
];

/** Errors about a tool name, a method name and a workspace path carrying `text` hold none of it raw. */
async function expectErrorsEscape(ctx: CheckContext, text: string): Promise<void> {
  const { client } = await ctx.session();
  const replies: [string, Reply][] = [
    ["tools/call of a tool so named", await client.request("tools/call", { name: `conformance${text}`, arguments: {} })],
    ["a method so named", await client.request(`conformance/${text}`, {})],
  ];
  const other = await ctx.connect("workspace");
  const workspace = `${ctx.run.outside}/missing${text}`;
  replies.push([
    "hello with a workspace so named",
    await other.request("hello", { protocol: PROTOCOL, client: { name: "venom-conformance", version: "0" }, workspace }),
  ]);
  for (const [what, reply] of replies) {
    expect(reply.error !== undefined, `${what}: answered with a result, not an error`);
    const raw = rawControls(reply);
    ctx.see(what, JSON.stringify(reply.error));
    expect(raw.length === 0, `${what}: the error carries raw characters a terminal acts on or hides: ${JSON.stringify(raw[0])}`);
  }
  await ctx.assertServing();
}
