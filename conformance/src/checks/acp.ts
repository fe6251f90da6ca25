import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ErrorCode } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { expect, fail, NotApplicable } from "../verdict.js";
import type { WireClient } from "../wire-client.js";
import { waitingQuestion } from "./orch.js";

// Checks of a daemon that hands work to ACP agents: they launch the fake ACP
// agent venom-orch ships (apps/orchestrator-lite/agents/acp-agent.mjs),
// configured as `[agents.acp-probe]` with `acp = true`. Its prompt names
// scenarios; with `record` first it keeps the client's capabilities and every
// reply line (what the client answered) in its cwd.

const NO_CAPABILITIES = securityModel(
  "Delegated runs",
  "SCV declares no client file-system or terminal capabilities and refuses every `fs/*`, `terminal/*`, or other agent-to-client request, so the agent cannot use SCV to read, write, or run anything.",
);
const RISK_BY_KIND = securityModel(
  "Delegated runs",
  "The agent's own `session/request_permission` requests go through the calling session's approval gate (labelled `[claude-1 acp]`) with a risk derived from the ACP tool kind in the same way as SCV's own tools: reads are read-only unless they touch a secret-like path, edits are file-system work, commands are processes, and fetches are network.",
);
const READ_UNASKED = securityModel(
  "Delegated runs",
  "Under the default `on-risk` policy a relayed read is therefore approved without asking, like SCV's own `read`.",
);
const REJECT = securityModel("Delegated runs", "A denial selects the agent's reject option, and a relay without a gate rejects.");
const ACP_CLIENT = design(
  "Delegation across daemons",
  "ACP agents run in pipe panes; `venom-orch` is their client (`@agentclientprotocol/sdk`), declares no fs/terminal capability, refuses every agent-to-client request with an error, and routes `session/request_permission` through the same relay with a risk from the tool kind; approve selects `allow_once`, never `allow_always`.",
);

export const ACP_PROBE = "acp-probe";

interface AcpRecord {
  capabilities?: { fs?: { readTextFile?: boolean; writeTextFile?: boolean }; terminal?: boolean };
  replies: string[];
}

/** Launch the ACP probe on `scenarios` in `dir`; not applicable when the daemon has no `acp-probe` agent. */
async function launch(ctx: CheckContext, client: WireClient, scenarios: string[], dir: string, extra: Record<string, unknown> = {}) {
  const prompt = ["record", ...scenarios].join("\n");
  const reply = await client.request(
    "tools/call",
    { name: "agent", arguments: { agent: ACP_PROBE, prompt, cwd: ctx.rel(dir), ...extra } },
    60_000,
  );
  if (reply.error?.code === ErrorCode.InvalidParams && /agent/.test(reply.error.message) && !/cwd/.test(reply.error.message)) {
    throw new NotApplicable(
      `the daemon offers no "${ACP_PROBE}" ACP agent: configure [agents.${ACP_PROBE}] executable = apps/orchestrator-lite/agents/acp-agent.mjs, acp = true`,
    );
  }
  return reply;
}

/** The probe's record in `dir` once it holds `replies` reply lines (the capabilities line, then one a scenario). */
async function recorded(dir: string, replies: number): Promise<AcpRecord> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const name = readdirSync(dir).find((n) => n.startsWith(".acp-agent-"));
    if (name) {
      const record = JSON.parse(readFileSync(join(dir, name), "utf8")) as AcpRecord;
      if (record.replies.length >= replies) return record;
    }
  }
  fail(`the ACP probe left no complete record in ${dir} within 30s`);
}

/** The reply line of scenario `prefix`. */
const replyOf = (record: AcpRecord, prefix: string) => record.replies.find((line) => line.startsWith(prefix)) ?? "(no reply)";

const KINDS = [
  ["read src/a.ts", null],
  ["read .env", "secret-read"],
  ["edit a.txt", "write"],
  ["delete a.txt", "write"],
  ["execute ls", "process"],
  ["fetch url", "network"],
  ["other x", "process"],
  ["none x", "process"],
] as const;

export const acpChecks: readonly Check[] = [
  {
    id: "orch/acp-no-capabilities",
    level: "MUST",
    requirement: NO_CAPABILITIES,
    also: [ACP_CLIENT],
    expected: "initialize declares fs.readTextFile, fs.writeTextFile and terminal false (or absent)",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("acp-capabilities");
      await launch(ctx, client, ["title capabilities"], dir);
      const { capabilities } = await recorded(dir, 2);
      expect(capabilities, "the agent was never initialized");
      expect(capabilities.fs?.readTextFile !== true, "the client declared fs.readTextFile");
      expect(capabilities.fs?.writeTextFile !== true, "the client declared fs.writeTextFile");
      expect(capabilities.terminal !== true, "the client declared terminal");
      return `clientCapabilities ${JSON.stringify(capabilities)}`;
    },
  },
  {
    id: "orch/acp-refuses-agent-requests",
    level: "MUST",
    requirement: NO_CAPABILITIES,
    also: [ACP_CLIENT],
    expected:
      "fs/read_text_file, fs/write_text_file, terminal/create, elicitation/create and an unknown method each get a JSON-RPC error, never a result",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("acp-requests");
      const methods = ["fs/read_text_file", "fs/write_text_file", "terminal/create", "elicitation/create", "x.venom-conformance/unknown"];
      await launch(
        ctx,
        client,
        methods.map((m) => `ask-client ${m}`),
        dir,
      );
      const record = await recorded(dir, methods.length + 1);
      const answered = methods.filter((m) => !/: error -?\d+/.test(replyOf(record, `ask-client ${m}:`)));
      expect(answered.length === 0, `answered instead of refused: ${answered.map((m) => replyOf(record, `ask-client ${m}:`)).join("; ")}`);
      return methods
        .map((m) =>
          replyOf(record, `ask-client ${m}:`)
            .replace(/^ask-client /, "")
            .slice(0, 60),
        )
        .join("; ");
    },
  },
  {
    id: "orch/acp-risk-by-kind",
    level: "MUST",
    requirement: RISK_BY_KIND,
    also: [READ_UNASKED],
    expected:
      "permission requests reach the launching session labelled as the agent's, with read → (approved unasked), a secret-like read → secret-read, edit/delete → write, execute → process, fetch → network, other or no kind → asked",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("acp-risk");
      const before = client.requests.length;
      await launch(
        ctx,
        client,
        KINDS.map(([what]) => `tool ${what}`),
        dir,
      );
      await recorded(dir, KINDS.length + 1);
      const asked = client.requests.slice(before).map((r) => r.params as { label?: string; risk?: string; summary?: string });
      const relayed = asked.filter((r) => r.label?.includes("acp"));
      const wanted = KINDS.flatMap(([, risk]) => (risk ? [risk] : []));
      const got = relayed.map((r) => r.risk);
      expect(JSON.stringify(got) === JSON.stringify(wanted), `relayed risks ${JSON.stringify(got)}, expected ${JSON.stringify(wanted)}`);
      return `risks ${got.join(", ")}; the plain read was not asked`;
    },
  },
  {
    id: "orch/acp-read-outside-asks",
    level: "MUST",
    requirement: RISK_BY_KIND,
    expected:
      "a read permission request for /proc/self/environ, a file in a dot-directory of the daemon's home (~/.config) or a file outside the workspace is relayed as secret-read, and the person's denial selects reject_once; a read of a workspace file is not asked",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({
        label: "launcher",
        approve: (p) => ((p as { label?: string }).label?.includes("acp") ? "deny" : "approve"),
      });
      const dir = ctx.dir("acp-read-outside");
      // Names no secret-name list holds: what asks is where they are, like SCV's own read, which refuses all three.
      const outside = [
        "/proc/self/environ",
        join(ctx.target.userHome ?? homedir(), ".config", "venom-conformance", "notes.txt"),
        join(ctx.run.outside, "notes.txt"),
      ];
      const before = client.requests.length;
      await launch(ctx, client, [...outside.map((path) => `tool read ${path}`), "tool read notes.txt"], dir);
      const record = await recorded(dir, outside.length + 2);
      const relayed = client.requests
        .slice(before)
        .map((r) => r.params as { label?: string; risk?: string; summary?: string })
        .filter((r) => r.label?.includes("acp"));
      // In order, one a path (a summary may redact a long path: the risk and the order say which was asked).
      const risks = relayed.map((r) => r.risk);
      const wanted = outside.map(() => "secret-read");
      expect(
        JSON.stringify(risks) === JSON.stringify(wanted),
        `relayed risks ${JSON.stringify(risks)} for ${outside.join(", ")} and a workspace read, expected ${JSON.stringify(wanted)}`,
      );
      const replies = record.replies.filter((line) => line.startsWith("tool read:"));
      const allowed = replies.slice(0, outside.length).filter((line) => !line.endsWith("selected reject_once"));
      expect(allowed.length === 0, `a denied read outside the workspace got: ${allowed.join("; ")}`);
      return `${outside.length} reads outside the workspace asked as secret-read and rejected; the workspace read ${replies.at(-1)}`;
    },
  },
  {
    id: "orch/acp-allow-once-only",
    level: "MUST",
    requirement: ACP_CLIENT,
    expected: "an approved permission request selects the agent's allow_once option, never allow_always, even when allow_always is offered",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("acp-allow-once");
      await launch(ctx, client, ["tool edit a.txt", "tool execute ls", "onlyalways"], dir);
      const record = await recorded(dir, 4);
      expect(!record.replies.some((line) => line.includes("allow_always")), `allow_always was selected: ${record.replies.join("; ")}`);
      expect(replyOf(record, "tool edit:").endsWith("selected allow_once"), `an approved edit got ${replyOf(record, "tool edit:")}`);
      return record.replies.slice(1).join("; ");
    },
  },
  {
    id: "orch/acp-reject-without-gate",
    level: "MUST",
    requirement: REJECT,
    expected:
      "a denial selects reject_once; a background job's execute request (no autoApprove) is rejected without asking, or, where the daemon has an inbox, rejected once the person denies it there",
    needs: ["agent"],
    async run(ctx) {
      const { client, hello } = await ctx.session({
        label: "launcher",
        approve: (p) => ((p as { label?: string }).label?.includes("acp") ? "deny" : "approve"),
      });
      const denied = ctx.dir("acp-denied");
      await launch(ctx, client, ["tool edit a.txt"], denied);
      const deniedReply = replyOf(await recorded(denied, 2), "tool edit:");
      expect(deniedReply.endsWith("selected reject_once"), `a denied edit got ${deniedReply}`);
      const background = ctx.dir("acp-background");
      await launch(ctx, client, ["tool execute ls"], background, { background: true });
      if (hello.methods.includes("inbox/list")) {
        const question = await waitingQuestion(client, "acp");
        expect((await client.request("inbox/answer", { id: question.id, decision: "deny" })).error === undefined, "inbox/answer failed");
      }
      const unattended = replyOf(await recorded(background, 2), "tool execute:");
      expect(!unattended.includes("allow"), `a background job's execute request was allowed: ${unattended}`);
      return `denied: ${deniedReply}; background: ${unattended}`;
    },
  },
];
