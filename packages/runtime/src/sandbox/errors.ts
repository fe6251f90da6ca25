import { ToolFailure } from "@venom/proto";

/**
 * A launch refused because confinement is configured and cannot be enforced
 * as configured (no Landlock, too old an ABI, a writable path that is not
 * there). A ToolFailure, so its reason reaches the caller whole.
 */
export class SandboxUnavailableError extends ToolFailure {}
