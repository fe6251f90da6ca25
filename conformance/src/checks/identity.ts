import { chmodSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DaemonStatusResultSchema, ErrorCode, MARKER_DEPTH, MARKER_PARENT, PROTOCOL } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import { type CheckContext, CLOSE_WAIT_MS, type HelloResult } from "../context.js";
import { expect, expectError, expectResult, fail } from "../verdict.js";
import type { WireClient } from "../wire-client.js";

const MANAGEMENT_RULE = securityModel(
  "Delegated runs",
  "Delegation depth is bounded by `agent.max_delegation_depth`, and at any depth above zero the `scv` CLI refuses to run, start, stop, restart, or update a daemon or manage channels, so an SCV started by a delegated agent cannot manage its parent.",
);

/**
 * Open the socket and its directory to everyone, and let everyone search the
 * directories above, so that only the daemon's own peer check stands between
 * another uid and it. Returns what puts the modes back.
 */
function loosen(socket: string): () => void {
  const changed: [string, number][] = [];
  const widen = (path: string, bits: number) => {
    const mode = statSync(path).mode & 0o7777;
    if ((mode & bits) === bits) return;
    changed.push([path, mode]);
    chmodSync(path, mode | bits);
  };
  widen(socket, 0o777);
  widen(dirname(socket), 0o777);
  for (let dir = dirname(dirname(socket)); dir !== dirname(dir); dir = dirname(dir)) widen(dir, 0o001);
  return () => {
    for (const [path, mode] of changed.reverse()) chmodSync(path, mode);
  };
}

/** A delegate must not manage: each management call is refused with who the caller is, and the daemon goes on. */
async function expectManagementRefused(ctx: CheckContext, client: WireClient, hello: HelloResult): Promise<void> {
  expect(!hello.grant.manage, "the delegate's grant includes management");
  for (const [method, params] of [
    ["daemon/stop", undefined],
    ["daemon/restart", { whenIdle: false }],
  ] as const) {
    const error = expectError(await client.request(method, params), ErrorCode.OwnerRequired, `${method} from a delegate`);
    const principal = (error.data as { principal?: { kind?: unknown } } | undefined)?.principal;
    expect(principal?.kind === "delegate", `the refusal of ${method} does not say who the caller is (data.principal)`);
  }
  expectResult(await client.request("daemon/status"), DaemonStatusResultSchema, "daemon/status after the refusals");
  await ctx.assertServing();
}

export const identityChecks: readonly Check[] = [
  {
    id: "identity/foreign-uid",
    level: "MUST",
    requirement: rfc0008("Local daemon and plugins", "Daemon endpoints and tokens are current-user only."),
    also: [
      design(
        "Wire protocol",
        "Before anything else the server checks the peer with SO_PEERCRED: another uid is closed before any byte is read.",
      ),
    ],
    expected:
      "with the socket and its directories opened to everyone (0777), a client running as `nobody` connects and says hello, and the daemon closes that connection without answering a byte",
    async run(ctx) {
      if (process.getuid?.() !== 0) fail("cannot switch uid: run as root");
      const restore = loosen(ctx.target.socket);
      try {
        const relay = ctx.relay({ label: "nobody", asNobody: true });
        await relay.client.send({
          jsonrpc: "2.0",
          id: 1,
          method: "hello",
          params: { protocol: PROTOCOL, client: { name: "venom-conformance", version: "0" } },
        });
        const connected = await relay.connected;
        expect(connected === "connected", `the client running as nobody could not reach the socket (${connected}), so nothing was tested`);
        const closed = await relay.client.waitClosed(CLOSE_WAIT_MS);
        expect(relay.client.bytesReceived === 0, `the daemon answered a process of another uid (${relay.client.bytesReceived} bytes)`);
        expect(closed, `the connection from another uid was still open ${CLOSE_WAIT_MS / 1000}s later`);
        return "a client running as nobody was closed without a byte answered";
      } finally {
        restore();
      }
    },
  },
  {
    id: "identity/delegate-markers",
    level: "MUST",
    requirement: securityModel(
      "Delegated runs",
      "SCV tags each delegated process through its environment (`SCV_PARENT`, `SCV_DELEGATION_DEPTH`), records it under `$SCV_HOME/state/delegations` while it runs, stops its process group and tagged descendants when it ends, and has the daemon stop orphans whose owning SCV process died.",
    ),
    also: [
      MANAGEMENT_RULE,
      design(
        "Identity",
        "Depth is the larger of what the client claims and what the server observes: the markers in `/proc/<peer pid>/environ`, and whether any ancestor of the peer is a process recorded in a delegation record (or the multiplexer itself).",
      ),
    ],
    expected: `a process whose environment carries ${MARKER_DEPTH}=1 ${MARKER_PARENT}=conformance/x, claiming nothing in hello, is a delegate (depth 1, parent conformance/x); its daemon/stop is refused with ${ErrorCode.OwnerRequired} and the daemon keeps answering`,
    async run(ctx) {
      const relay = ctx.relay({ label: "delegate", env: { [MARKER_DEPTH]: "1", [MARKER_PARENT]: "conformance/x" } });
      const hello = await ctx.hello(relay.client);
      const { kind, depth, parent } = hello.principal;
      // An owner session here would really stop the daemon: judge the hello before asking anything of it.
      expect(kind === "delegate", `hello names a process carrying delegation markers "${kind}"`);
      expect(depth >= 1 && parent === "conformance/x", `hello says depth ${depth}, parent ${JSON.stringify(parent)}`);
      await expectManagementRefused(ctx, relay.client, hello);
      return `principal delegate depth ${depth} parent ${parent}; management refused; the daemon still answers`;
    },
  },
  {
    id: "identity/owner-context-refusal",
    level: "MUST",
    requirement: MANAGEMENT_RULE,
    also: [
      design(
        "Identity",
        "Owner-context refusal: at depth > 0 every management call and every management CLI command is refused with a clear message.",
      ),
    ],
    expected: `the owner's session may manage; a session that claims depth 1 in hello is a delegate whose daemon/stop and daemon/restart are refused with ${ErrorCode.OwnerRequired} and data.principal, and the daemon keeps answering`,
    async run(ctx) {
      const { hello: owner } = await ctx.session({ label: "owner" });
      expect(
        owner.principal.kind === "owner" && owner.grant.manage,
        "the owner's own session is not granted management, so refusals prove nothing",
      );
      const { client, hello } = await ctx.session({
        label: "claimed-delegate",
        hello: { delegation: { depth: 1, parent: "conformance/claimed" } },
      });
      expect(hello.principal.kind === "delegate", `a hello claiming depth 1 gets principal "${hello.principal.kind}"`);
      await expectManagementRefused(ctx, client, hello);
      return "owner manages; claimed delegate refused daemon/stop and daemon/restart; the daemon still answers";
    },
  },
];
