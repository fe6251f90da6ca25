import { readdirSync, readFileSync } from "node:fs";
import { processStat, reapAdopted } from "./proc.js";

// A daemon is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphaned
// descendant is re-parented to it, and when one exits, only the daemon can
// collect it. Node collects only the children it spawned itself (and node-pty
// its own), so whatever else the daemon adopted would stay a zombie for good.
// Spawned children are registered here and left alone; every other zombie
// child is reaped on each SIGCHLD.

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

/** Reap every zombie child that nobody else will: adopted orphans, never a registered spawned child. */
export function reapStrays(): void {
  reapAdopted(children().filter((pid) => !spawned.has(pid) && processStat(pid)?.state === "Z"));
}

let installed = false;

/** Reap adopted orphans whenever a child exits. */
export function reapStraysOnSigchld(): void {
  if (installed) return;
  installed = true;
  process.on("SIGCHLD", reapStrays);
}
