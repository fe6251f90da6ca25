import type { Delegation } from "./session.js";

// What a delegate may see and act on (conformance/spec/design.md, "Handles
// belong to their owner"): one rule for venom-mux's panes and venom-orch's jobs,
// by the one delegation a session acts for (session.ts, Delegation).

/** Who is looking or making: a session, by the delegation it acts for (null: the owner, or a local session). */
export interface Actor {
  readonly delegation: Delegation | null;
}

/**
 * Something a session made (a pane, a job): the delegation records from the
 * top of the tree down to the one it runs as itself, once it runs as one.
 */
export interface Made {
  readonly lineage: readonly string[];
}

/**
 * The rule: the owner sees everything; a delegate sees what was made in its
 * own delegation's subtree (what runs as its record, and all that was made
 * from there); a delegate no record vouches for sees nothing.
 */
export function sees(viewer: Actor, made: Made): boolean {
  const { delegation } = viewer;
  if (delegation === null) return true;
  return delegation.record !== null && made.lineage.includes(delegation.record);
}

/**
 * The lineage of what `maker` makes, before its own record is added: the
 * lineage of what the maker runs as, among `made` (a pane, a job), else its
 * record alone; empty for the owner and for a delegate no record vouches for.
 */
export function lineageOf(maker: Actor, made: Iterable<Made>): string[] {
  const record = maker.delegation?.record ?? null;
  if (record === null) return [];
  for (const { lineage } of made) if (lineage.at(-1) === record) return [...lineage];
  return [record];
}
