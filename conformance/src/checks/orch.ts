import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cutMiddle, ErrorCode, MARKER_DEPTH, MARKER_PARENT, terminalSafe } from "@venom/proto";
import * as z from "zod";
import { type Check, design, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { expect, expectError, expectResult, fail, NotApplicable } from "../verdict.js";
import type { Reply, WireClient } from "../wire-client.js";

// Checks of a daemon that offers the `agent` tool (venom-orch or another
// orchestrator): they launch venom-conformance's probe agent, configured as
// `[agents.probe]` (conformance/probe/agent.mjs), which records what it was
// handed in its cwd and can try to approve its own relayed call.

const ADAPTER_RULE = securityModel(
  "Tool rules",
  "Each adapter uses an executable and argument vector without shell interpolation, appends the model-provided prompt as one argument, uses the workspace or a directory inside it as current directory, applies the same timeout/output bounds, kills the process group on cancellation, and requires approval.",
);
export const ENV_RULE = securityModel(
  "Tool rules",
  "It first removes from the child environment SCV's selector variables, every variable ending in `_API_KEY`, and the credential, endpoint, and state variables that any adapter declares (such as `CLAUDE_CODE_OAUTH_TOKEN`, `CLAUDE_CONFIG_DIR`, `OPENAI_BASE_URL`, `GROK_*`, `DSH_*`, and `PI_*`), so no agent inherits the user's or another agent's credentials.",
);
export const ALLOW_LIST = design(
  "Delegation across daemons",
  "Agents keep `VENOM_HOME` (so they can reach the instance's daemons as delegates) but get a private `HOME`, XDG dirs and state variable, and an **allow-listed** environment: base variables plus the adapter's `env_pass`; secret-shaped names never pass.",
);
const HOME_RULE = securityModel(
  "Tool rules",
  "SCV supplies an instance-private `HOME`, `SCV_HOME`, XDG directories, and the agent's own state variable (`CODEX_HOME`, `GROK_HOME`, `DSH_HOME`, or `PI_CODING_AGENT_DIR`) inside that home.",
);
const TAG_RULE = securityModel(
  "Delegated runs",
  "SCV tags each delegated process through its environment (`SCV_PARENT`, `SCV_DELEGATION_DEPTH`), records it under `$SCV_HOME/state/delegations` while it runs, stops its process group and tagged descendants when it ends, and has the daemon stop orphans whose owning SCV process died.",
);
const CWD_RULE = securityModel(
  "Tool rules",
  "A per-call `cwd` is resolved with symlinks followed at launch and must remain an existing directory under the canonical workspace; `..`, absolute paths elsewhere, and links pointing outside are refused.",
);
export const RELAY_RULE = securityModel(
  "Delegated runs",
  "Its tools are still gated by approval, and each of its `approval.requested` events is relayed to the calling session's own approval gate (labelled `[scv-1 depth N]`, with the nested tool's name and risk), so the policy and user deciding the parent's side effects also decide the nested ones; a relay without a gate denies.",
);
export const ONE_RELAY = design(
  "Delegation across daemons",
  "**One relay rule for every daemon**: a delegate's call that needs approval is never answered by the delegate's own connection.",
);
const BACKGROUND_RULE = securityModel(
  "Delegated runs",
  "It has no turn to ask a person through, so each approval request its agent relays gets the answer the session gives without asking anyone: the approval policy's own decision (read-only requests under `on-risk` or `never`), else an approval when the client declared `auto_approve` in `session.start`, else a denial.",
);
const NEVER_MORE = securityModel(
  "Delegated runs",
  "A job therefore never gets more than the same request would get in the foreground: in the TUI its other requests are denied and it acts within the agent's own permissions (a step that needs approval fails), while an owner chat session, whose bridge already approves every request, grants its jobs the same.",
);
const DEPTH_RULE = design(
  "Delegation across daemons",
  "Depth is bounded by `agent.max_delegation_depth`; a call that would exceed it is refused before anything starts.",
);

const PROBE = "probe";
const RELAY_PROMPT = "venom-conformance: ask through the relay";
/** What a shell would mangle: quotes, substitutions, backticks, newlines, a leading dash. */
const NASTY_PROMPT = '-x it\'s "quoted" $(touch substituted) `touch backticked` $HOME\nsecond line; touch chained #';

interface ProbeRecord {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  askedMyself: boolean;
  relayed: { status?: string; error?: string } | null;
}

interface WaitingQuestion {
  id: string;
  label: string;
  tool: string;
}

async function inboxQuestions(client: WireClient): Promise<WaitingQuestion[]> {
  const reply = expectResult(
    await client.request("inbox/list", {}),
    z.object({ questions: z.array(z.object({ id: z.string(), label: z.string(), tool: z.string() })) }),
    "inbox/list",
  );
  return reply.questions;
}

/** A background job's question (a relayed one by default: its label names the chain), once it waits in the inbox. */
export async function waitingQuestion(client: WireClient, labelled = " via "): Promise<WaitingQuestion> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const waiting = (await inboxQuestions(client)).find((q) => q.label.includes(labelled));
    if (waiting) return waiting;
  }
  fail(`the background job's question (labelled …${labelled}…) never appeared in the inbox (inbox/list) within 30s`);
}

/** Launch the probe agent in `dir` through the `agent` tool; not applicable when the daemon has no `probe` agent. */
async function launch(ctx: CheckContext, client: WireClient, prompt: string, dir: string, extra: Record<string, unknown> = {}) {
  const reply = await client.request(
    "tools/call",
    { name: "agent", arguments: { agent: PROBE, prompt, cwd: ctx.rel(dir), ...extra } },
    60_000,
  );
  if (reply.error?.code === ErrorCode.InvalidParams && /agent/.test(reply.error.message) && !/cwd/.test(reply.error.message)) {
    throw new NotApplicable(`the daemon offers no "${PROBE}" agent: configure [agents.probe] executable = conformance/probe/agent.mjs`);
  }
  return reply;
}

/**
 * The probe's records in `dir`, oldest first; waits for `count` of them.
 * `launched` is the launch's reply: where no record comes, it says why.
 */
async function records(dir: string, launched: Reply, count = 1, done?: (r: ProbeRecord) => boolean): Promise<ProbeRecord[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const found = readdirSync(dir)
      .filter((name) => name.startsWith(".venom-conformance-probe-"))
      .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as ProbeRecord);
    if (found.length >= count && (!done || found.every(done))) return found;
  }
  // The daemon's words, shown on a terminal: escaped, and bounded.
  const answer = launched.error ? `error ${launched.error.code}: ${launched.error.message}` : JSON.stringify(launched.result);
  fail(
    `the probe agent left no record in ${dir} within 30s: it was never launched (the agent call answered ${terminalSafe(cutMiddle(answer, 500), { singleLine: true })})`,
  );
}

/** Secret-shaped names (conformance/spec/design.md, "Delegation across daemons"): none may reach an agent. */
const SECRET_SHAPED = /_API_KEY$|TOKEN|SECRET|PASSWORD|CREDENTIAL|^(AWS|ANTHROPIC|OPENAI|GOOGLE|GEMINI|XAI|DEEPSEEK)_/i;

export const orchChecks: readonly Check[] = [
  {
    id: "orch/prompt-one-argument",
    level: "MUST",
    requirement: ADAPTER_RULE,
    expected:
      "the prompt (quotes, $(), backticks, newlines, a leading dash) arrives as the agent's last argument, byte for byte; no shell ran any of it",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("prompt");
      const [seen] = await records(dir, await launch(ctx, client, NASTY_PROMPT, dir));
      expect(seen?.argv.at(-1) === NASTY_PROMPT, `the agent's last argument is ${JSON.stringify(seen?.argv.at(-1))}, not the prompt`);
      for (const file of ["substituted", "backticked", "chained"])
        expect(!existsSync(join(dir, file)), `a shell ran part of the prompt: ${file} exists`);
      return `argv ${JSON.stringify(seen?.argv)}`;
    },
  },
  {
    id: "orch/env-allow-list",
    level: "MUST",
    requirement: ENV_RULE,
    also: [ALLOW_LIST],
    expected: "the canary planted in the daemon's environment and every secret-shaped name are absent from the agent's environment",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("env");
      const [seen] = await records(dir, await launch(ctx, client, "env", dir));
      const env = seen?.env ?? {};
      const canary = ctx.target.canary;
      if (canary) expect(!Object.values(env).some((v) => v.includes(canary)), "the daemon's canary reached the agent's environment");
      const secret = Object.keys(env).filter((name) => SECRET_SHAPED.test(name));
      expect(secret.length === 0, `secret-shaped variables reached the agent: ${secret.join(", ")}`);
      return `${Object.keys(env).length} variables, none secret-shaped${canary ? ", no canary" : ""}`;
    },
  },
  {
    id: "orch/private-home",
    level: "MUST",
    requirement: HOME_RULE,
    expected: "the agent's HOME is a private directory (mode 0700), not the daemon's own HOME, inside VENOM_HOME when it is known",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("home");
      const home = (await records(dir, await launch(ctx, client, "home", dir)))[0]?.env.HOME;
      expect(home, "the agent has no HOME");
      expect(home !== process.env.HOME, `the agent's HOME is the user's own (${home})`);
      const mode = statSync(home).mode & 0o777;
      expect(mode === 0o700, `the agent's HOME ${home} has mode 0${mode.toString(8)}, not 0700`);
      if (ctx.target.home) expect(home.startsWith(`${ctx.target.home}/`), `the agent's HOME ${home} is outside VENOM_HOME`);
      return `HOME ${home}, mode 0700`;
    },
  },
  {
    id: "orch/markers",
    level: "MUST",
    requirement: TAG_RULE,
    expected: "the agent carries VENOM_DELEGATION_DEPTH=1 and a VENOM_PARENT when launched by the owner",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("markers");
      const env = (await records(dir, await launch(ctx, client, "markers", dir)))[0]?.env ?? {};
      expect(env[MARKER_DEPTH] === "1", `${MARKER_DEPTH} is ${JSON.stringify(env[MARKER_DEPTH])}, not "1"`);
      expect(Boolean(env[MARKER_PARENT]), `${MARKER_PARENT} is missing`);
      return `${MARKER_DEPTH}=1, ${MARKER_PARENT}=${env[MARKER_PARENT]}`;
    },
  },
  {
    id: "orch/cwd-containment",
    level: "MUST",
    requirement: CWD_RULE,
    expected: "a cwd with `..`, outside the workspace or through a symlink leading out is refused before anything starts",
    needs: ["agent"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("cwd");
      symlinkSync(ctx.run.outside, join(dir, "out"));
      const refused: string[] = [];
      for (const cwd of ["../..", ctx.run.outside, ctx.rel(join(dir, "out"))]) {
        const reply = await client.request("tools/call", { name: "agent", arguments: { agent: PROBE, prompt: "cwd", cwd } }, 60_000);
        const result = reply.result as { status?: string } | undefined;
        expect(reply.error !== undefined || (result && result.status !== "ok"), `cwd ${cwd} was accepted`);
        refused.push(`${cwd}: ${reply.error ? `error ${reply.error.code}` : result?.status}`);
      }
      expect(readdirSync(ctx.run.outside).length === 0, "something ran in a directory outside the workspace");
      return refused.join("; ");
    },
  },
  {
    id: "orch/relay",
    level: "MUST",
    requirement: RELAY_RULE,
    also: [ONE_RELAY],
    expected:
      "the agent's own call to the daemon needing approval is asked of the session that launched it, labelled with the delegation and depth; the denial reaches the agent, whose own approving gate is never asked",
    needs: ["agent"],
    async run(ctx) {
      // Approve the launch, deny whatever is relayed afterwards.
      const { client } = await ctx.session({
        label: "launcher",
        approve: (p) => ((p as { label?: string }).label?.includes(" via ") ? "deny" : "approve"),
      });
      const dir = ctx.dir("relay");
      const answered = client.requests.length;
      const reply = await launch(ctx, client, RELAY_PROMPT, dir);
      const [seen] = await records(dir, reply, 1, (r) => r.relayed !== null);
      const asked = client.requests.slice(answered).map((r) => r.params as { tool?: string; label?: string });
      const relayed = asked.find((r) => r.label?.includes(" via "));
      expect(relayed, `no relayed approval reached the launching session (it was asked: ${JSON.stringify(asked)})`);
      expect(/depth 1\]$/.test(relayed.label ?? ""), `the relayed label ${relayed.label} does not name the depth`);
      expect(!seen?.askedMyself, "the agent's own connection was asked to approve its own call");
      expect(seen?.relayed?.status !== "ok", `the agent's call went through: ${JSON.stringify(seen?.relayed)}`);
      return `relayed as ${relayed.label} ${relayed.tool}; the launch reply ${reply.error ? `error ${reply.error.code}` : "answered"}; the agent got ${JSON.stringify(seen?.relayed)}`;
    },
  },
  {
    id: "orch/background-no-gate",
    level: "MUST",
    requirement: BACKGROUND_RULE,
    also: [NEVER_MORE],
    expected:
      "a background job's relayed approval is not put to the launching session: without autoApprove it is denied, or, where the daemon has an inbox (`inbox/list`), it waits there, and the call goes through only once the person answers it",
    needs: ["agent"],
    async run(ctx) {
      const { client, hello } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("background");
      const before = client.requests.length;
      const launched = await launch(ctx, client, RELAY_PROMPT, dir, { background: true });
      let how = "denied without asking";
      if (hello.methods.includes("inbox/list")) {
        const question = await waitingQuestion(client);
        expect(
          readdirSync(dir).every((name) => !name.startsWith(".venom-conformance-probe-")) ||
            (await records(dir, launched, 1))[0]?.relayed === null,
          "the background job's call was answered before the person answered its question",
        );
        expectResult(await client.request("inbox/answer", { id: question.id, decision: "deny" }), z.unknown(), "inbox/answer");
        how = `waited in the inbox as ${question.label} ${question.tool}, denied there`;
      }
      const [seen] = await records(dir, launched, 1, (r) => r.relayed !== null);
      const asked = client.requests.slice(before).map((r) => r.params as { tool?: string; label?: string });
      expect(!asked.some((r) => r.label?.includes(" via ")), "a background job's relayed approval was put to the launching session");
      expect(
        seen?.relayed?.status !== "ok" && !seen?.askedMyself,
        `the background job's call went through: ${JSON.stringify(seen?.relayed)}`,
      );
      return `${how}; the job's call got ${JSON.stringify(seen?.relayed)}`;
    },
  },
  {
    id: "orch/inbox-owner-only",
    level: "MUST",
    requirement: ONE_RELAY,
    also: [NEVER_MORE],
    expected:
      "from inside a delegation, listing and answering the inbox are refused with -32003 and the question still waits; the owner's answer names exactly one question: answering it again, or a question id never asked, fails and changes nothing",
    needs: ["agent"],
    needsMethods: ["inbox/list", "inbox/answer"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "launcher" });
      const dir = ctx.dir("inbox");
      const launched = await launch(ctx, client, RELAY_PROMPT, dir, { background: true });
      const question = await waitingQuestion(client);
      const { client: delegate, connected } = ctx.relay({
        label: "delegate",
        env: { [MARKER_DEPTH]: "1", [MARKER_PARENT]: "venom-conformance/inbox" },
      });
      expect((await connected) === "connected", "the delegate could not connect");
      await ctx.hello(delegate, { approvals: false });
      expectError(await delegate.request("inbox/list", {}), ErrorCode.OwnerRequired, "inbox/list from a delegate");
      expectError(
        await delegate.request("inbox/answer", { id: question.id, decision: "approve" }),
        ErrorCode.OwnerRequired,
        "inbox/answer from a delegate",
      );
      const still = (await inboxQuestions(client)).some((q) => q.id === question.id);
      expect(still, "the question no longer waits after a delegate tried to answer it");
      const unknown = `q${"0".repeat(16)}`;
      expect(
        (await client.request("inbox/answer", { id: unknown, decision: "approve" })).error !== undefined,
        "an id never asked was accepted",
      );
      expectResult(await client.request("inbox/answer", { id: question.id, decision: "deny" }), z.unknown(), "inbox/answer");
      const again = await client.request("inbox/answer", { id: question.id, decision: "approve" });
      expect(again.error !== undefined, "a second answer to the same question was accepted");
      const [seen] = await records(dir, launched, 1, (r) => r.relayed !== null);
      expect(seen?.relayed?.status !== "ok", `the call went through although its question was denied: ${JSON.stringify(seen?.relayed)}`);
      return `refused to the delegate (-32003); the second answer: ${again.error?.message ?? "accepted"}`;
    },
  },
  {
    id: "orch/depth-refusal",
    level: "MUST",
    requirement: DEPTH_RULE,
    expected: "a delegate at a depth past the limit asking for an agent gets -32004 before anything starts",
    needs: ["agent"],
    async run(ctx) {
      const dir = ctx.dir("depth");
      const { client, connected } = ctx.relay({
        label: "deep-delegate",
        env: { [MARKER_DEPTH]: "99", [MARKER_PARENT]: "venom-conformance/deep" },
      });
      expect((await connected) === "connected", "the delegate could not connect");
      await ctx.hello(client, { approvals: false });
      const reply = await client.request(
        "tools/call",
        { name: "agent", arguments: { agent: PROBE, prompt: "deep", cwd: ctx.rel(dir) } },
        60_000,
      );
      expectError(reply, ErrorCode.DepthLimit, "agent at depth 100");
      expect(readdirSync(dir).length === 0, "the probe ran although the launch was refused");
      return "refused with -32004, nothing ran";
    },
  },
];
