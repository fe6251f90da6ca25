import { describe, it } from "vitest";
import { CATCH_TIMEOUT_MS, catches, FAULT_GROUPS } from "./suite-against.js";

// The fixture's faults of files, logs and what a daemon claims.
describe("the suite against a deliberately broken daemon", () => {
  it.each(FAULT_GROUPS.files)("catches fault %s with exactly its intended checks", catches, CATCH_TIMEOUT_MS);
});
