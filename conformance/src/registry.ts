import type { Check } from "./check.js";
import { acpChecks } from "./checks/acp.js";
import { approvalChecks } from "./checks/approval.js";
import { boundsChecks } from "./checks/bounds.js";
import { confinementChecks } from "./checks/confinement.js";
import { containmentChecks } from "./checks/containment.js";
import { delegatedChecks } from "./checks/delegated.js";
import { descriptorChecks } from "./checks/descriptors.js";
import { eventsChecks } from "./checks/events.js";
import { framingChecks } from "./checks/framing.js";
import { grantsChecks } from "./checks/grants.js";
import { handshakeChecks } from "./checks/handshake.js";
import { homeChecks } from "./checks/home.js";
import { identityChecks } from "./checks/identity.js";
import { orchChecks } from "./checks/orch.js";
import { paneChecks } from "./checks/panes.js";
import { processChecks } from "./checks/process.js";
import { protocolChecks } from "./checks/protocol.js";
import { secretsChecks } from "./checks/secrets.js";
import { stdioChecks } from "./checks/stdio.js";
import { transportChecks } from "./checks/transport.js";
import { writeChecks } from "./checks/write.js";

/**
 * Every check, in the order they run. Identity comes late because a daemon that
 * fails its management refusals really stops; the canary scan comes last
 * because it reads everything the daemon said before it.
 */
export const CHECKS: readonly Check[] = [
  ...transportChecks,
  ...homeChecks,
  ...handshakeChecks,
  ...framingChecks,
  ...protocolChecks,
  ...stdioChecks,
  ...grantsChecks,
  ...approvalChecks,
  ...boundsChecks,
  ...writeChecks,
  ...eventsChecks,
  ...containmentChecks,
  ...confinementChecks,
  ...processChecks,
  ...descriptorChecks,
  ...delegatedChecks,
  ...identityChecks,
  ...paneChecks,
  ...orchChecks,
  ...acpChecks,
  ...secretsChecks,
];

/** The checks whose id starts with any of `prefixes` (all of them when none is given). */
export function selectChecks(prefixes: readonly string[]): Check[] {
  return CHECKS.filter((check) => prefixes.length === 0 || prefixes.some((prefix) => check.id.startsWith(prefix)));
}
