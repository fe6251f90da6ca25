import { readdirSync, readFileSync } from "node:fs";
import { processStat, reapAdopted } from "./proc.js";

// A daemon is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphaned
// descendant is re-parented to it, and when one exits, only the daemon can
// collect it. Node collects only the children it spawned itself (and node-pty
// its own), so whatever else the daemon adopted would stay a zombie for good.
// Spawned children are registered here and left alone. Any other zombie child
// is reaped once it has stayed a zombie across two looks a second apart: Node
// and node-pty collect their own children at once, so a child that some code
// spawned without registering it is still left to them.

const spawned = new Set<number>();

/** A child this process spawned through Node or node-pty: its exit status is theirs. Returns the release to call once it exited. */
export function spawnedChild(pid: number): () => void {
  spawned.add(pid);
  return () => spawned.delete(pid);
}

/** This process's children, from /proc/self/task/<tid>/children (every thread's). */
function children(): number[] {
  const pids: number[] = [];
  for (const tid of readdirSync("/proc/self/task")) {
    let text = "";
    try {
      text = readFileSync(`/proc/self/task/${tid}/children`, "latin1");
    } catch {
      continue;
    }
    for (const pid of text.split(" ")) if (/^\d+$/.test(pid)) pids.push(Number(pid));
  }
  return pids;
}

const SETTLE_MS = 1_000;
/** Zombie children seen at the last look, and their start times (a pid is only a name together with it). */
let seen = new Map<number, number>();

/**
 * Reap the zombie children nobody else will: adopted orphans. A zombie is
 * reaped if it was already a zombie at the previous look; returns whether any
 * unregistered zombie is left to look at again.
 */
export function reapStrays(): boolean {
  const now = new Map<number, number>();
  for (const pid of children()) {
    const stat = processStat(pid);
    if (!spawned.has(pid) && stat?.state === "Z") now.set(pid, stat.startTime);
  }
  const settled = [...now].filter(([pid, startTime]) => seen.get(pid) === startTime).map(([pid]) => pid);
  reapAdopted(settled);
  for (const pid of settled) now.delete(pid);
  seen = now;
  return now.size > 0;
}

let lookPending = false;

function lookSoon(): void {
  if (lookPending) return;
  lookPending = true;
  setTimeout(() => {
    lookPending = false;
    if (reapStrays()) lookSoon();
  }, SETTLE_MS).unref();
}

/** Look for adopted orphans to reap whenever a child exits. */
export function reapStraysOnSigchld(): void {
  if (process.listeners("SIGCHLD").includes(onSigchld)) return;
  process.on("SIGCHLD", onSigchld);
}

/** Looks happen a second apart: the first records the zombies, the next reaps those still there. */
function onSigchld(): void {
  lookSoon();
}
