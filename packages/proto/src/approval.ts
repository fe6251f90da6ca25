import { ErrorCode } from "./codes.js";
import { ProtocolError } from "./errors.js";
import type { ApprovalPolicy } from "./policy.js";
import { terminalSafe } from "./terminal-text.js";
import type { ApprovalRequest, Grant, Risk } from "./wire.js";

export type PolicyDecision = "allow" | "ask" | "deny";

/**
 * The server's decision for one call, before anyone is asked (conformance/spec/security-model.txt, "Approval
 * behavior"): `on-risk` runs plain reads and asks for the rest, `always` asks for
 * everything, `never` denies everything but plain reads; it never silently executes.
 */
export function policyDecision(policy: ApprovalPolicy, risk: Risk): PolicyDecision {
  switch (policy) {
    case "always":
      return "ask";
    case "never":
      return risk === "read" ? "allow" : "deny";
    case "on-risk":
      return risk === "read" ? "allow" : "ask";
  }
}

/**
 * The answer when there is nobody to ask (a background job, or a client with no
 * gate that declared autoApprove): the policy's own decision, else the client's
 * stated autoApprove, else deny.
 */
export function unattendedAnswer(policy: ApprovalPolicy, risk: Risk, autoApprove: boolean): "allow" | "deny" {
  const decision = policyDecision(policy, risk);
  if (decision !== "ask") return decision;
  return autoApprove ? "allow" : "deny";
}

const STRICTNESS: readonly ApprovalPolicy[] = ["on-risk", "always", "never"];

/** The stricter of two policies: attenuation never loosens approval. */
export function stricterPolicy(a: ApprovalPolicy, b: ApprovalPolicy): ApprovalPolicy {
  return STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b;
}

/** Asks the person behind a session. `null` means the session has no gate: every question denies. */
export type ApprovalGate = ((request: ApprovalRequest, signal: AbortSignal) => Promise<"approve" | "deny">) | null;

/**
 * A gate that refuses a question without asking anyone, because too many of
 * its delegation's questions already wait (packages/runtime/src/relay.ts):
 * the caller is told why, in these words. Busy (-32006) when it crosses a
 * daemon-to-daemon relay.
 */
export class ApprovalBusy extends ProtocolError {
  constructor(message: string) {
    super(ErrorCode.Busy, message);
  }
}

/** Why an approval was not given, for the caller's error; `null` when it was. */
export type ApprovalOutcome = { allowed: true } | { allowed: false; reason: string };

/**
 * The approval decision where nobody needs to be asked (conformance/spec/security-model.txt, "Approval
 * behavior"): the policy allows or denies on its own, or there is nobody to ask
 * (no gate, or unattended work) and the policy's own answer, else autoApprove,
 * else deny stands. "ask" when the gate must be asked. Synchronous: most calls
 * end here, and the RPC floor pays for every await (docs/benchmarks.md).
 */
export function approvalWithoutAsking(
  grant: Grant,
  gate: ApprovalGate,
  risk: Risk,
  tool: string,
  unattended = false,
): ApprovalOutcome | "ask" {
  const decision = policyDecision(grant.policy, risk);
  if (decision === "allow") return { allowed: true };
  if (decision === "deny") return { allowed: false, reason: `approval policy "${grant.policy}" does not allow ${risk} calls` };
  if (unattended || gate === null) {
    if (unattendedAnswer(grant.policy, risk, grant.autoApprove) === "allow") return { allowed: true };
    return { allowed: false, reason: `${tool} needs approval and no one can be asked (the client has no approval gate)` };
  }
  return "ask";
}

/**
 * The one approval decision, for tool calls and app methods alike: the
 * decision without asking where there is one (approvalWithoutAsking), else the
 * gate's answer; a refusal, a failing gate and a cancellation all deny, and
 * a gate that was too busy to ask says so.
 */
export async function askApproval(
  grant: Grant,
  gate: ApprovalGate,
  request: ApprovalRequest,
  signal: AbortSignal,
  unattended = false,
): Promise<ApprovalOutcome> {
  const early = approvalWithoutAsking(grant, gate, request.risk, request.tool, unattended);
  if (early !== "ask") return early;
  let answer: "approve" | "deny";
  try {
    // "ask" means there is a gate.
    answer = gate ? await gate(request, signal) : "deny";
  } catch (error) {
    if (error instanceof ApprovalBusy && !signal.aborted) return { allowed: false, reason: error.message };
    answer = "deny";
  }
  if (signal.aborted) return { allowed: false, reason: "the call was cancelled while waiting for approval" };
  return answer === "approve" ? { allowed: true } : { allowed: false, reason: `the approval for ${request.tool} was refused` };
}

/**
 * The label of a relayed approval: the asking daemon's own label with the
 * delegation it came through, so the person sees the chain:
 * "[echo]" becomes "[echo via claude-1 depth 1]", and one hop further up
 * "[echo via claude-2 depth 2 via venom-1 depth 1]".
 */
export function relayLabel(label: string, delegation: string, depth: number): string {
  const inner = label.startsWith("[") && label.endsWith("]") ? label.slice(1, -1) : label;
  return `[${inner} via ${delegation} depth ${depth}]`.slice(0, 256);
}

/** Characters of a host's label that would make it read as another's: its own "@" and brackets, shown escaped. */
const LABEL_MARKS = /[@[\]]/g;
/** How much of the host's first name is kept, so the host's name always fits in the label. */
const HEAD_MAX = 64;

/**
 * The label of a question that came from another host (docs/remote.md): the host's label, which is that host's text
 * and untrusted, escaped on one line (its own "@", "[" and "]" too), with "@HOST" after its first name, the host
 * named by the local configuration: "[echo via claude-1 depth 1]" from devbox is "[echo@devbox via claude-1 depth 1]".
 * Whatever the host sends, the label starts with its first name and this host.
 */
export function hostLabel(label: string, host: string): string {
  const inner = label.startsWith("[") && label.endsWith("]") ? label.slice(1, -1) : label;
  const shown = terminalSafe(inner, { singleLine: true }).replace(
    LABEL_MARKS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  const space = shown.indexOf(" ");
  const head = (space === -1 ? shown : shown.slice(0, space)).slice(0, HEAD_MAX);
  const rest = space === -1 ? "" : shown.slice(space);
  return `[${`${head}@${host}${rest}`.slice(0, 254)}]`;
}
