/** Environment markers every delegated process carries. */
export const MARKER_PARENT = "VENOM_PARENT";
export const MARKER_DEPTH = "VENOM_DELEGATION_DEPTH";

/** Where a principal's delegation depth came from; shown to the caller in hello. */
export interface Markers {
  depth: number;
  parent: string | null;
}

const NO_MARKERS: Markers = Object.freeze({ depth: 0, parent: null });

/**
 * Read the markers from an environment. A marker that is present but garbled
 * still means "delegated": it fails towards less authority, never more.
 */
export function parseMarkers(env: Readonly<Record<string, string | undefined>>): Markers {
  const rawDepth = env[MARKER_DEPTH];
  const rawParent = env[MARKER_PARENT];
  if (rawDepth === undefined && rawParent === undefined) return NO_MARKERS;
  const parent = rawParent === undefined || rawParent === "" ? null : rawParent.slice(0, 256);
  const depth = rawDepth !== undefined && /^\d{1,4}$/.test(rawDepth) ? Number(rawDepth) : 0;
  return { depth: Math.max(depth, 1), parent };
}

/** The markers a child one level below `parentDepth` gets. */
export function childMarkers(parent: string, parentDepth: number): Record<string, string> {
  return { [MARKER_PARENT]: parent, [MARKER_DEPTH]: String(parentDepth + 1) };
}

/** The deepest of several observations: depth is never lowered by a claim. */
export function deepest(...observations: Markers[]): Markers {
  return observations.reduce((a, b) => (b.depth > a.depth ? b : a), NO_MARKERS);
}
