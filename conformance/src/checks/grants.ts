import { isDeepStrictEqual } from "node:util";
import { canonicalJson, ErrorCode, SnapshotSchema, type SnapshotWire, sha256Hex } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import type { Session } from "../context.js";
import { sampleArguments } from "../probes.js";
import { expect, expectError, expectResult } from "../verdict.js";

/** tools/list must return exactly the snapshot hello announced. */
async function listed(session: Session, what: string) {
  const snapshot = expectResult(await session.client.request("tools/list"), SnapshotSchema, `tools/list (${what})`);
  expect(isDeepStrictEqual(snapshot, session.hello.snapshot), `tools/list (${what}) differs from the snapshot its hello announced`);
  return snapshot;
}

/** What a snapshot's fingerprint must be: the sha256 of the RFC 8785 canonical JSON of its tools (docs/protocol.md). */
const recomputed = (snapshot: SnapshotWire) => sha256Hex(canonicalJson(snapshot.tools));

export const grantsChecks: readonly Check[] = [
  {
    id: "grants/fingerprint",
    level: "MUST",
    requirement: rfc0008(
      "Canonical interception",
      "Capabilities are a set with canonical order, so source declaration order cannot change fingerprints, snapshots, or policy decisions.",
    ),
    also: [
      design(
        "Grants",
        "Each session gets one immutable snapshot of definitions with a fingerprint (sha256 of canonical JSON); the dispatcher rejects any name outside it.",
      ),
    ],
    expected:
      "every snapshot the daemon sends (hello with and without tools, tools/list) lists its tools in name order, and its fingerprint is the lowercase hex sha256 of the RFC 8785 canonical JSON of its `tools` array, so the suite computes the same value",
    async run(ctx) {
      const owner = await ctx.session({ label: "fingerprint" });
      const none = await ctx.session({ label: "no-tools", hello: { noTools: true } });
      const listed = expectResult(await owner.client.request("tools/list"), SnapshotSchema, "tools/list");
      for (const [what, snapshot] of [
        ["hello", owner.hello.snapshot],
        ["hello without tools", none.hello.snapshot],
        ["tools/list", listed],
      ] as const) {
        const names = snapshot.tools.map((tool) => tool.name);
        const sorted = [...names].sort();
        expect(isDeepStrictEqual(names, sorted), `${what}: the tools are not in name order (${names.join(", ")})`);
        const expected = recomputed(snapshot);
        ctx.see(what, `fingerprint ${snapshot.fingerprint}, recomputed ${expected}`);
        expect(
          snapshot.fingerprint === expected,
          `${what}: the fingerprint ${snapshot.fingerprint} is not the sha256 of the canonical JSON of its tools (${expected})`,
        );
      }
      return `3 snapshots (${owner.hello.snapshot.tools.length} tools, none, tools/list): each fingerprint recomputed`;
    },
  },
  {
    id: "grants/snapshot-stable",
    level: "MUST",
    requirement: rfc0008("Canonical interception", "Each run uses one immutable leased definition snapshot."),
    also: [
      design(
        "Grants",
        "Each session gets one immutable snapshot of definitions with a fingerprint (sha256 of canonical JSON); the dispatcher rejects any name outside it.",
      ),
    ],
    expected:
      "two owner sessions get the same snapshot fingerprint; tools/list returns exactly hello's snapshot, also after another session came and went; a snapshot with other tools has another fingerprint",
    async run(ctx) {
      const first = await ctx.session({ label: "first" });
      const second = await ctx.session({ label: "second" });
      const a = first.hello.snapshot.fingerprint;
      expect(a === second.hello.snapshot.fingerprint, `two owner sessions got fingerprints ${a} and ${second.hello.snapshot.fingerprint}`);
      await listed(first, "first session");
      await listed(second, "second session");
      second.client.close();
      const none = await ctx.session({ label: "no-tools", hello: { noTools: true } });
      await listed(first, "first session, after others");
      const differs = first.hello.snapshot.tools.length === 0 || none.hello.snapshot.fingerprint !== a;
      expect(
        differs,
        "a session without tools has the same fingerprint as one with tools: the fingerprint does not identify the definitions",
      );
      return `fingerprint ${a.slice(0, 12)}… stable across sessions and tools/list`;
    },
  },
  {
    id: "grants/unknown-tool",
    level: "MUST",
    requirement: rfc0008(
      "Canonical interception",
      "The guard rejects tool names outside that snapshot even if a mutable or malicious delegate later advertises or accepts them.",
    ),
    also: [design("Wire protocol", "| -32005 | tool not in this session's snapshot or grant | open |")],
    expected: `tools/call of a name outside the snapshot (unknown names, object-prototype names, case and space variants of real ones) gets error ${ErrorCode.ToolNotGranted}; the connection stays open`,
    async run(ctx) {
      const { client, hello } = await ctx.session();
      const real = hello.snapshot.tools[0]?.name ?? "echo";
      const names = ["conformance-no-such-tool", "__proto__", "constructor", "toString", real.toUpperCase(), `${real} `];
      for (const name of names) {
        expectError(
          await client.request("tools/call", { name, arguments: {} }),
          ErrorCode.ToolNotGranted,
          `tools/call ${JSON.stringify(name)}`,
        );
      }
      expectResult(await client.request("tools/list"), SnapshotSchema, "tools/list after the refusals");
      return `refused ${names.length} names with ${ErrorCode.ToolNotGranted}`;
    },
  },
  {
    id: "grants/no-tools",
    level: "MUST",
    requirement: securityModel(
      "Supervised remote bridge",
      "By default, remote sessions request `no_tools: true`, enforced by the server, and the bridge denies any approval request, so remote messages do not authorize filesystem, shell, or delegated-agent tools.",
    ),
    also: [design("Grants", "No-tools sessions get none.")],
    expected: `a hello with noTools gets an empty grant and snapshot, and every tool the owner has is refused to it with ${ErrorCode.ToolNotGranted}`,
    needs: "any",
    async run(ctx) {
      const session = await ctx.session({ label: "no-tools", hello: { noTools: true } });
      expect(session.hello.grant.tools.length === 0, `the no-tools session is granted ${session.hello.grant.tools.join(", ")}`);
      expect(session.hello.snapshot.tools.length === 0, "the no-tools session's snapshot lists tools");
      await listed(session, "no-tools session");
      for (const tool of ctx.run.hello.snapshot.tools) {
        const reply = await session.client.request("tools/call", { name: tool.name, arguments: sampleArguments(tool) });
        expectError(reply, ErrorCode.ToolNotGranted, `tools/call ${tool.name} in a no-tools session`);
      }
      return `empty grant; ${ctx.run.hello.snapshot.tools.length} tools refused`;
    },
  },
];
