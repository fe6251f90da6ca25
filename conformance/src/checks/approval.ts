import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRequest, ApprovalRequestParamsSchema, terminalSafe } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import type { CheckContext, Session } from "../context.js";
import { type EffectProbe, effectProbes, INVISIBLE, runArguments } from "../probes.js";
import { expect } from "../verdict.js";

const PROBE_TOOLS = ["write", "run", "read"] as const;
const DENIAL_RULE = securityModel("Approval behavior", "A denial is returned to the model as a failed tool result.");

/** Call a probe and require a refusal with no effect; returns the approval requests the call caused. */
async function expectDenied(ctx: CheckContext, session: Session, probe: EffectProbe, why: string) {
  const before = session.client.requests.length;
  const result = await ctx.callTool(session.client, probe.tool, probe.args);
  expect(result.status === "denied" || result.status === "failed", `${probe.tool} ${why}: the call returned status "${result.status}"`);
  expect(!probe.tookEffect(result), `${probe.tool} ${why}: the call took effect`);
  return session.client.requests.slice(before).filter((request) => request.method === "approval/request");
}

/** The approval request a denied `run` of `script` sent to the session's gate. */
async function askedToRun(ctx: CheckContext, session: Session, script: string): Promise<ApprovalRequest> {
  const before = session.client.requests.length;
  const tool = ctx.tool("run");
  expect(tool, "hello offers no run");
  await ctx.callTool(session.client, "run", runArguments(tool, script));
  const asked = session.client.requests.slice(before).filter((request) => request.method === "approval/request");
  expect(asked.length === 1, `run ${JSON.stringify(script)}: the gate was asked ${asked.length} times, expected once`);
  const request = ApprovalRequestParamsSchema.safeParse(asked[0]?.params);
  expect(request.success, "approval/request does not match the venom/1 schema");
  return request.data;
}

export const approvalChecks: readonly Check[] = [
  {
    id: "approval/deny-no-side-effect",
    level: "MUST",
    requirement: DENIAL_RULE,
    also: [
      securityModel("Approval behavior", "An approval prompt includes the exact tool name and a bounded, human-readable summary."),
      securityModel(
        "Tool rules",
        "Lexically secret-like read paths such as `.env`, private keys, and credential files require approval, but this heuristic is not a confidentiality boundary.",
      ),
    ],
    expected:
      "a write, a run and a read of `.env` each ask the gate once (approval/request naming the exact tool, bounded summary); denied, the call is a failed or denied tool result and nothing happened; approved, the same call takes effect",
    needs: PROBE_TOOLS,
    async run(ctx) {
      const denying = await ctx.session({ label: "denying", approve: "deny" });
      const approving = await ctx.session({ label: "approving", approve: "approve" });
      const probes = effectProbes(ctx, ctx.run.workspace, ctx.dir("approval"));
      for (const probe of probes) {
        const asked = await expectDenied(ctx, denying, probe, "denied by the gate");
        expect(asked.length === 1, `${probe.tool}: the gate was asked ${asked.length} times, expected once`);
        const request = ApprovalRequestParamsSchema.safeParse(asked[0]?.params);
        expect(request.success, `${probe.tool}: approval/request does not match the venom/1 schema`);
        expect(request.data.tool === probe.tool, `${probe.tool}: approval/request names the tool "${request.data.tool}"`);
        // The same call approved must take effect: otherwise the refusal above proved nothing.
        const approved = await ctx.callTool(approving.client, probe.tool, probe.args);
        expect(
          approved.status === "ok" && probe.tookEffect(approved),
          `${probe.tool}: approved, the same call did not take effect (status ${approved.status})`,
        );
      }
      return `${probes.map((p) => p.tool).join(", ")}: denied without effect, approved with effect`;
    },
  },
  {
    id: "approval/no-gate-denies",
    level: "MUST",
    requirement: securityModel(
      "Delegated runs",
      "It has no turn to ask a person through, so each approval request its agent relays gets the answer the session gives without asking anyone: the approval policy's own decision (read-only requests under `on-risk` or `never`), else an approval when the client declared `auto_approve` in `session.start`, else a denial.",
    ),
    also: [
      design(
        "Grants",
        "Approval: the server decides whether to ask; per call; the prompt is the exact tool name and a bounded summary; a denial, a cancellation, a client without a gate and a relay without a gate all deny.",
      ),
    ],
    expected:
      "a session whose hello declares no gate (approvals: false) is never sent approval/request, and every call needing approval is a failed or denied result without effect",
    needs: PROBE_TOOLS,
    async run(ctx) {
      const session = await ctx.session({ label: "no-gate", hello: { approvals: false } });
      const probes = effectProbes(ctx, ctx.run.workspace, ctx.dir("no-gate"));
      for (const probe of probes) {
        const asked = await expectDenied(ctx, session, probe, "without a gate");
        expect(asked.length === 0, `${probe.tool}: a client that declared no gate was sent approval/request`);
      }
      return `${probes.map((p) => p.tool).join(", ")}: denied without asking, no effect`;
    },
  },
  {
    id: "approval/never-policy",
    level: "MUST",
    requirement: securityModel("Approval behavior", "`never` means deny side effects; it does not mean silently execute them."),
    also: [
      design("Configuration", "The project's `.venom/config.toml` in the workspace is untrusted and applied last, as a restriction only"),
    ],
    expected:
      'in a workspace whose .venom/config.toml sets approval policy "never", hello\'s grant says never; calls with side effects are denied without effect even though the gate would approve; echo still runs',
    needs: PROBE_TOOLS,
    async run(ctx) {
      const root = ctx.dir("never");
      mkdirSync(join(root, ".venom"));
      writeFileSync(join(root, ".venom", "config.toml"), '[approval]\npolicy = "never"\n');
      const session = await ctx.session({ label: "never", hello: { workspace: root }, approve: "approve" });
      expect(session.hello.grant.policy === "never", `the project config says never, hello's grant says "${session.hello.grant.policy}"`);
      const probesDir = join(root, "probes");
      mkdirSync(probesDir);
      const probes = effectProbes(ctx, root, probesDir);
      for (const probe of probes) await expectDenied(ctx, session, probe, "under the never policy");
      if (ctx.tool("echo")) {
        const echoed = await ctx.callTool(session.client, "echo", { text: "conformance" });
        expect(echoed.status === "ok", `echo, which has no side effect, did not run under never (status ${echoed.status})`);
      }
      return `grant policy never; ${probes.map((p) => p.tool).join(", ")} denied without effect`;
    },
  },
  {
    id: "approval/summary-invisible-escaped",
    level: "MUST",
    requirement: securityModel(
      "Approval behavior",
      "An approval prompt includes the exact tool name and a bounded, human-readable summary.",
    ),
    also: [
      securityModel(
        "Trust boundaries",
        "Model output, tool arguments, project files, project configuration, skill text, command output, and delegated-agent output are untrusted.",
      ),
    ],
    expected:
      "the approval request for a run whose command carries characters a terminal shows as nothing (Unicode tag characters spelling a command, a zero-width space, a word joiner, a soft hyphen) holds none of them raw in its summary or label, and shows them: its summary differs from the summary of the same command without them, so the person sees that the command carries more than its visible text",
    needs: ["run"],
    async run(ctx) {
      const denying = await ctx.session({ label: "denying", approve: "deny" });
      const plain = await askedToRun(ctx, denying, "echo conformance");
      const hidden = await askedToRun(ctx, denying, `echo conformance${INVISIBLE}`);
      ctx.see("summary of the run with invisible characters", hidden.summary);
      for (const [what, text] of [
        ["summary", hidden.summary],
        ["label", hidden.label],
      ] as const) {
        expect(terminalSafe(text) === text, `the ${what} carries raw characters a terminal acts on or hides: ${JSON.stringify(text)}`);
      }
      expect(
        hidden.summary !== plain.summary,
        `the summary is the same as without the invisible characters: ${JSON.stringify(plain.summary)}`,
      );
      return "the invisible characters are escaped and shown in the summary";
    },
  },
];
