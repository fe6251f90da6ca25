import { stricterPolicy } from "./approval.js";
import type { ApprovalPolicy } from "./policy.js";
import type { Snapshot } from "./snapshot.js";
import type { Grant, Principal } from "./wire.js";

export interface GrantInputs {
  principal: Principal;
  snapshot: Snapshot;
  /** The effective policy of the server's trusted configuration. */
  policy: ApprovalPolicy;
  /** Tools the configuration disabled. */
  disabledTools?: Iterable<string>;
  /** What the client said in hello; it can only narrow. */
  noTools?: boolean;
  autoApprove?: boolean;
  /** The grant of the session that delegated this principal, if known. */
  parent?: Grant;
}

/**
 * A session's grant, computed by the server and never taken from the client.
 * A delegate's grant is the intersection of its parent's grant and its own
 * configuration: delegation never widens anything. Only the owner manages.
 */
export function computeGrant(inputs: GrantInputs): Grant {
  const disabled = new Set(inputs.disabledTools ?? []);
  let tools = inputs.noTools ? [] : inputs.snapshot.names.filter((name) => !disabled.has(name));
  let policy = inputs.policy;
  // A delegate's word that it approves everything is worth nothing on its own: only a parent that auto-approves lends it.
  let autoApprove = inputs.autoApprove === true && (inputs.principal.kind !== "delegate" || inputs.parent !== undefined);
  if (inputs.parent) {
    const parentTools = new Set(inputs.parent.tools);
    tools = tools.filter((name) => parentTools.has(name));
    policy = stricterPolicy(policy, inputs.parent.policy);
    autoApprove = autoApprove && inputs.parent.autoApprove;
  }
  return Object.freeze({
    tools: Object.freeze([...tools].sort()) as string[],
    policy,
    autoApprove,
    manage: inputs.principal.kind === "owner",
  });
}
