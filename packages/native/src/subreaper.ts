import { check, libc } from "./libc.js";

// Child-subreaper status (prctl(2)). A subreaper adopts orphaned descendants
// instead of init, so a supervisor can still see and reap (and kill)
// grandchildren whose parent died. The process must then reap them itself.

const PR_SET_CHILD_SUBREAPER = 36;
const PR_GET_CHILD_SUBREAPER = 37;

// prctl() is variadic and reads its remaining arguments as unsigned longs;
// prctl(2) asks for the unused ones to be zero, so they are passed explicitly.
const UNUSED = ["unsigned long", 0, "unsigned long", 0, "unsigned long", 0] as const;

/** Marks the calling process as a child subreaper. */
export function setChildSubreaper(): void {
  const { prctl } = libc();
  check("prctl(PR_SET_CHILD_SUBREAPER)", prctl(PR_SET_CHILD_SUBREAPER, "unsigned long", 1, ...UNUSED));
}

/** Whether the calling process is a child subreaper. */
export function isChildSubreaper(): boolean {
  const { prctl, types } = libc();
  const out = [0];
  check("prctl(PR_GET_CHILD_SUBREAPER)", prctl(PR_GET_CHILD_SUBREAPER, types.intOut, out, ...UNUSED));
  return out[0] !== 0;
}
