/** A requirement the daemon did not meet: a fail for a MUST, a warn for a SHOULD. */
export class CheckFailure extends Error {
  override readonly name = "CheckFailure";
}

/** Fail the check that is running with `message`, which says what the daemon did wrong. */
export function fail(message: string): never {
  throw new CheckFailure(message);
}
