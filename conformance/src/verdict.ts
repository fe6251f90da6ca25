import type { ErrorObject } from "@venom/proto";
import type { z } from "zod";
import { fail } from "./failure.js";
import { FRAME_LIMIT, type Reply } from "./wire-client.js";

// Where a check's failure is declared, below the wire client that fails a check too: one name for every check to import.
export { CheckFailure, fail } from "./failure.js";

/** The daemon's hello says the feature a check needs is absent (e.g. a tool without the argument it tests). */
export class NotApplicable extends Error {
  override readonly name = "NotApplicable";
}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

/** A JSON-RPC error reply with this code; anything else fails the check. */
export function expectError(reply: Reply, code: number, what: string): ErrorObject {
  if (reply.error === undefined) fail(`${what}: expected error ${code}, got a result`);
  expect(reply.error.code === code, `${what}: expected error ${code}, got ${reply.error.code} (${reply.error.message})`);
  return reply.error;
}

/** A result reply that matches `schema` (a venom/1 schema from @venom/proto). */
export function expectResult<T>(reply: Reply, schema: z.ZodType<T>, what: string): T {
  if (reply.error !== undefined) fail(`${what}: expected a result, got error ${reply.error.code} (${reply.error.message})`);
  const parsed = schema.safeParse(reply.result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail(`${what}: the result does not match the venom/1 schema (${issue?.path.join(".") || "result"}: ${issue?.message})`);
  }
  return parsed.data;
}

/** A reply a conforming client can read: one line within the frame limit. */
export function expectFramed(reply: Reply, what: string): void {
  expect(
    reply.bytes <= FRAME_LIMIT,
    `${what}: the reply is a ${reply.bytes}-byte line, over venom/1's ${FRAME_LIMIT}-byte frame limit, so a conforming client must drop the connection instead of reading it`,
  );
}
