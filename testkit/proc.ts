import { readdirSync, readFileSync } from "node:fs";

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

/** The fds a process holds, as /proc lists them, lowest first. */
export function openFds(pid: number): number[] {
  return readdirSync(`/proc/${pid}/fd`)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The program a process runs now, as /proc names it (comm: its first 15 bytes). */
export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}
