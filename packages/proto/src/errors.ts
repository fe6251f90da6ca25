import { ErrorCode } from "./codes.js";
import { bounded } from "./diagnostics.js";
import type { ErrorObject } from "./wire.js";

/**
 * A JSON-RPC error a server answers with. Its message and data are our own
 * words and facts (field paths, supported versions, who the caller is), never
 * an echo of the caller's payload or anything secret.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(bounded(message, 512));
  }

  toObject(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Whether the connection must close after this error (conformance/spec/design.md, the error table). */
  get closesConnection(): boolean {
    return (
      this.code === ErrorCode.ParseError ||
      this.code === ErrorCode.InvalidRequest ||
      this.code === ErrorCode.HelloRequired ||
      this.code === ErrorCode.UnsupportedProtocol
    );
  }
}

/**
 * An invalid-params error naming the first offending field; a field the
 * schema does not know (zod's unrecognized_keys, whose path is the object's)
 * is named by its own key too.
 */
export function invalidParams(
  issues: readonly { path: readonly PropertyKey[]; message: string; keys?: readonly PropertyKey[] }[],
  prefix: string[] = [],
): ProtocolError {
  const first = issues[0];
  const path = [...prefix, ...[...(first?.path ?? []), ...(first?.keys ?? []).slice(0, 1)].map(String)];
  const where = path.length > 0 ? path.join(".") : "params";
  return new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${where}: ${first?.message ?? "invalid"}`, { path });
}
