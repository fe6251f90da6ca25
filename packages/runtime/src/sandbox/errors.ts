import { ErrorCode, ProtocolError, ToolFailure } from "@venom/proto";
import { UnsafeHomeError } from "../home.js";

/**
 * A launch refused because confinement is configured and cannot be enforced
 * as configured (no Landlock, too old an ABI, a writable path that is not
 * there). A ToolFailure, so its reason reaches the caller whole.
 */
export class SandboxUnavailableError extends ToolFailure {}

/**
 * `launch()`, where a refusal must be a protocol error (a method such as
 * pane/new, a tool's precheck): a SandboxUnavailableError or UnsafeHomeError
 * it throws becomes an InternalError with the same reason, whole (both say
 * only what Venom found in its own directories, never a secret).
 */
export function refusedAsProtocolError<T>(launch: () => T): T {
  try {
    return launch();
  } catch (error) {
    if (error instanceof SandboxUnavailableError || error instanceof UnsafeHomeError)
      throw new ProtocolError(ErrorCode.InternalError, error.message);
    throw error;
  }
}
