import type { ApprovalPolicy, ApprovalRequest, Grant, Risk } from "./wire.js";

export type PolicyDecision = "allow" | "ask" | "deny";

/**
 * The server's decision for one call, before anyone is asked (spec, "Approval
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

/** Why an approval was not given, for the caller's error; `null` when it was. */
export type ApprovalOutcome = { allowed: true } | { allowed: false; reason: string };

/**
 * The one approval decision (spec, "Approval behavior"), for tool calls and
 * app methods alike: the policy decides whether to ask; with nobody to ask
 * (no gate, or unattended work) the policy's own answer, else autoApprove,
 * else deny; a refusal, a failing gate and a cancellation all deny.
 */
export async function askApproval(
  grant: Grant,
  gate: ApprovalGate,
  request: ApprovalRequest,
  /** The call's signal, or how to get it: a call's signal is made only once something waits on it. */
  cancellation: AbortSignal | (() => AbortSignal),
  unattended = false,
): Promise<ApprovalOutcome> {
  const decision = policyDecision(grant.policy, request.risk);
  if (decision === "allow") return { allowed: true };
  if (decision === "deny") return { allowed: false, reason: `approval policy "${grant.policy}" does not allow ${request.risk} calls` };
  if (unattended || gate === null) {
    if (unattendedAnswer(grant.policy, request.risk, grant.autoApprove) === "allow") return { allowed: true };
    return { allowed: false, reason: `${request.tool} needs approval and no one can be asked (the client has no approval gate)` };
  }
  const signal = typeof cancellation === "function" ? cancellation() : cancellation;
  let answer: "approve" | "deny";
  try {
    answer = await gate(request, signal);
  } catch {
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
