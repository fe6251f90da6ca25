import { describe, expect, it } from "vitest";
import { type Actor, lineageOf, type Made, sees } from "../src/visibility.js";

// The one rule venom-mux (panes) and venom-orch (jobs) both call; their own
// tests show it over the wire (apps/orchestrator-lite/test/visibility.test.ts).

const owner: Actor = { delegation: null };
const as = (record: string): Actor => ({ delegation: { record, evidence: "ancestry" } });
const unrecorded: Actor = { delegation: { record: null, evidence: "unrecorded" } };

/** What `maker` makes among `made`, running as `own`. */
function make(maker: Actor, made: Made[], own: string): Made {
  const thing = { lineage: [...lineageOf(maker, made), own] };
  made.push(thing);
  return thing;
}

describe("what a session may see", () => {
  it("a delegate sees what runs as it and what was made from there, however deep; never its maker's, a sibling's or the owner's", () => {
    const made: Made[] = [];
    const shell = make(owner, made, "shell");
    const agent = make(owner, made, "agent");
    const helper = make(as("agent"), made, "helper");
    const nested = make(as("helper"), made, "nested");
    expect(made.filter((m) => sees(as("agent"), m))).toEqual([agent, helper, nested]);
    expect(made.filter((m) => sees(as("helper"), m))).toEqual([helper, nested]);
    expect(made.filter((m) => sees(as("shell"), m))).toEqual([shell]);
    expect(made.filter((m) => sees(owner, m))).toEqual(made);
  });

  it("what a delegate makes before it runs as a record of its own (a job waiting for its pane) is in the maker's subtree", () => {
    const made: Made[] = [];
    make(owner, made, "agent");
    const waiting = { lineage: lineageOf(as("agent"), made) };
    made.push(waiting);
    expect(sees(as("agent"), waiting)).toBe(true);
    // The next one made from there finds the same lineage through it.
    expect(lineageOf(as("agent"), made)).toEqual(["agent"]);
  });

  it("a delegate no record vouches for sees nothing, not even what it made; what it makes is nobody's subtree", () => {
    const made: Made[] = [];
    make(owner, made, "agent");
    const its = make(unrecorded, made, "its");
    expect(its.lineage).toEqual(["its"]);
    expect(made.filter((m) => sees(unrecorded, m))).toEqual([]);
  });
});
