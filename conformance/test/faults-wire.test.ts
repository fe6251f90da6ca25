import { describe, it } from "vitest";
import { CATCH_TIMEOUT_MS, catches, FAULT_GROUPS } from "./suite-against.js";

// The fixture's faults of the wire: handshake, transport, framing, identity and the text of errors.
describe("the suite against a deliberately broken daemon", () => {
  it.each(FAULT_GROUPS.wire)("catches fault %s with exactly its intended checks", catches, CATCH_TIMEOUT_MS);
});
