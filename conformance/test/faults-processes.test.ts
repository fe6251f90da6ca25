import { describe, it } from "vitest";
import { CATCH_TIMEOUT_MS, catches, FAULT_GROUPS } from "./suite-against.js";

// The fixture's faults of the processes a daemon starts: markers, records, environment, descriptors, kills and bounds.
describe("the suite against a deliberately broken daemon", () => {
  it.each(FAULT_GROUPS.processes)("catches fault %s with exactly its intended checks", catches, CATCH_TIMEOUT_MS);
});
