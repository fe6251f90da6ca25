import type { ApprovalPolicy, Risk } from "./wire.js";

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
