import { readFileSync } from "node:fs";

/** A process that exists and is neither a zombie nor dead, as /proc says. */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The resident memory of a process in KiB, as /proc says. */
export function rssKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}
