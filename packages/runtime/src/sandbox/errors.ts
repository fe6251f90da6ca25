import { ErrorCode, ProtocolError, ToolFailure } from "@venom/proto";

/**
 * A launch refused because confinement is configured and cannot be enforced
 * as configured (no Landlock, too old an ABI, a writable path that is not
 * there). A ToolFailure, so its reason reaches the caller whole.
 */
export class SandboxUnavailableError extends ToolFailure {}

/**
 * `launch()`, where a refusal must be a protocol error (a method such as
 * pane/new, a tool's precheck): a SandboxUnavailableError it throws becomes
 * an InternalError with the same reason, whole.
 */
export function refusedAsProtocolError<T>(launch: () => T): T {
  try {
    return launch();
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new ProtocolError(ErrorCode.InternalError, error.message);
    throw error;
  }
}
