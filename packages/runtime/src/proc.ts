import { closeSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { ECHILD, NativeError, pidfdOpen, pidfdSendSignal, ptyExecPath, sandboxLauncherPath, WNOHANG, waitpid } from "@venom/native";
import { MARKER_PARENT } from "@venom/proto";
import { readVenomEnviron } from "./peer.js";

// Process facts from /proc, and signalling that never hits a reused pid: a
// process is named by pid AND start time, and signalled only through a pidfd
// opened before its start time is checked again, so the pidfd is known to
// hold exactly the process that was observed.

export interface ProcessStat {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** One letter: R running, S sleeping, Z zombie, X dead, ... */
  state: string;
  /** Field 22: clock ticks since boot. With the pid, it names one process for good. */
  startTime: number;
}

/**
 * The programs of Venom's own that a pane's program is started through, each
 * exec'ing the next (venom-pty-exec, venom-sandbox), as /proc/PID/exe names
 * them: a process that still runs one has not become the program asked for.
 * The fallbacks of a build without a C compiler (a shell, a Node script) are
 * not listed: their executable is the same as a program's own may be.
 */
export function launcherPrograms(): string[] {
  return [ptyExecPath(), sandboxLauncherPath()].flatMap((path) => (path ? [realpathSync(path)] : []));
}

/** The executable /proc shows for `pid`, or null (gone, a zombie, or not ours to read). */
export function executableOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** A process as it was observed: a pid is only meaningful together with its start time. */
export interface ProcessRef {
  pid: number;
  startTime: number;
}

/**
 * A process group's first process, and what every process Venom started in it
 * carries: the VENOM_PARENT value of its delegation. Without `parent`, a group
 * whose leader has exited is trusted as before (a live daemon's own groups,
 * whose number the kernel holds while it waits for them).
 */
export interface GroupAnchor extends ProcessRef {
  parent?: string;
}

/** /proc/<pid>/stat, or null if there is no such process (or it cannot be read). */
export function processStat(pid: number): ProcessStat | null {
  if (!Number.isInteger(pid) || pid < 1) return null;
  const text = readStatLine(pid);
  if (text === null) return null;
  // comm (field 2) may hold spaces and ")" itself; only the last ")" ends it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After comm, fields[0] is field 3 (state), so field n is fields[n - 3].
  const numbers = [fields[1], fields[2], fields[3], fields[19]].map(Number);
  const [ppid, pgid, sid, startTime] = numbers as [number, number, number, number];
  const state = fields[0] ?? "";
  if (!/^[A-Za-z]$/.test(state) || numbers.some((n) => !Number.isSafeInteger(n))) return null;
  return { pid, ppid, pgid, sid, state, startTime };
}

/**
 * One /proc/<pid>/stat line fits this buffer many times over (comm is at most
 * 64 bytes, the rest numbers). It is reused: a scan of /proc for a group's
 * members reads every process's stat, and readFileSync of a /proc file (size 0
 * to stat) allocates 64 KiB for each, which made such scans several times slower.
 */
const statBuffer = Buffer.alloc(4096);

function readStatLine(pid: number): string | null {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, "r");
  } catch {
    return null;
  }
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    // A line that fills the buffer was cut: unreadable rather than misread.
    return length < statBuffer.length ? statBuffer.toString("latin1", 0, length) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Zombies and dead tasks hold no resources and run nothing: they count as gone. */
export function isGone(stat: ProcessStat | null): boolean {
  return stat === null || stat.state === "Z" || stat.state === "X";
}

/** Whether `ref` is still the same process and has not exited. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = processStat(ref.pid);
  return !isGone(stat) && stat?.startTime === ref.startTime;
}

/** The parent, grandparent, ... of `pid` up to pid 1 (not `pid` itself); stops early where /proc cannot be read. */
export function ancestors(pid: number): number[] {
  const chain: number[] = [];
  for (let current = processStat(pid)?.ppid ?? 0; current > 0 && !chain.includes(current); ) {
    chain.push(current);
    current = processStat(current)?.ppid ?? 0;
  }
  return chain;
}

/**
 * Every process by process group, from one scan of /proc, shared by every
 * caller until the current synchronous run ends: a daemon stopping 200 panes
 * at once asks for 200 groups (each twice) in one run, and scanned /proc for
 * each; their polls afterwards share a run too (waitUntil). A snapshot is as good as a fresh scan for the callers: each member is
 * signalled through a pidfd after its start time is checked again, and a
 * group is only judged empty by a later poll.
 */
let groups: Map<number, ProcessStat[]> | null = null;

function groupsNow(): Map<number, ProcessStat[]> {
  if (groups) return groups;
  const scanned = new Map<number, ProcessStat[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = processStat(Number(name));
    if (stat) scanned.set(stat.pgid, [...(scanned.get(stat.pgid) ?? []), stat]);
  }
  groups = scanned;
  queueMicrotask(() => {
    groups = null;
  });
  return scanned;
}

/**
 * Every process whose process group is `pgid`, zombies included (scan of /proc).
 * A group the kernel has no process in (kill(-pgid, 0) fails with ESRCH; a
 * zombie still counts) has none without a scan: the common case when a pane's
 * program has exited, where the scan held up pane/wait's answer.
 */
export function groupMembers(pgid: number): ProcessStat[] {
  if (pgid > 0 && !groups && !groupExists(pgid)) return [];
  return groupsNow().get(pgid) ?? [];
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: someone is in it, only not ours to signal.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Signals `ref` only if it is still that process: opens a pidfd, then checks
 * the start time again (the pidfd cannot change identity afterwards). Returns
 * whether the signal was sent.
 */
export function signalProcess(ref: ProcessRef, signal: NodeJS.Signals, pgid?: number): boolean {
  let pidfd: number;
  try {
    pidfd = pidfdOpen(ref.pid);
  } catch (error) {
    if (error instanceof NativeError && error.code === "ESRCH") return false;
    throw error;
  }
  try {
    const stat = processStat(ref.pid);
    if (stat?.startTime !== ref.startTime || (pgid !== undefined && stat.pgid !== pgid)) return false;
    pidfdSendSignal(pidfd, signal);
    return true;
  } catch (error) {
    if (error instanceof NativeError && error.code === "ESRCH") return false;
    throw error;
  } finally {
    closeSync(pidfd);
  }
}

/**
 * Whether process group `pgid` is still the group `anchor` belonged to: its
 * leader (pid == pgid) is `anchor` itself, or `anchor` is verifiably still in
 * it. A group whose leader has exited may be another job that reused the
 * number after ours ended (a daemon recovering from a crash cannot know), so
 * with a `parent` it is ours only if every live member started no earlier than
 * the anchor and carries its VENOM_PARENT (conformance/spec/security-model.txt: "a process group only when its
 * leader matches or has exited"); one stranger in it and nothing is signalled.
 */
export function isSameGroup(pgid: number, anchor: GroupAnchor): boolean {
  const leader = processStat(pgid);
  if (leader === null) return anchor.parent === undefined || everyMemberCarries(pgid, anchor);
  const anchorStat = anchor.pid === pgid ? leader : processStat(anchor.pid);
  return anchorStat?.startTime === anchor.startTime && (anchor.pid === pgid || anchorStat.pgid === pgid);
}

function everyMemberCarries(pgid: number, anchor: GroupAnchor): boolean {
  return groupMembers(pgid)
    .filter((member) => !isGone(member))
    .every((member) => member.startTime >= anchor.startTime && readVenomEnviron(member.pid)?.[MARKER_PARENT] === anchor.parent);
}

/** The live members of the group, or none if it is not `anchor`'s group any more (see isSameGroup). */
export function verifiedMembers(pgid: number, anchor: GroupAnchor): ProcessStat[] {
  if (!isSameGroup(pgid, anchor)) return [];
  return groupMembers(pgid).filter((member) => !isGone(member));
}

/** Sends `signal` to every verified live member of the group, each through its own pidfd; returns the pids signalled. */
export function signalGroup(pgid: number, anchor: GroupAnchor, signal: NodeJS.Signals): number[] {
  return verifiedMembers(pgid, anchor)
    .filter((member) => signalProcess(member, signal, pgid))
    .map((member) => member.pid);
}

const POLL_MS = 25;

type Waiter = { done: () => boolean; deadline: number; resolve(held: boolean): void; reject(error: unknown): void };
const waiters = new Set<Waiter>();
let ticker: NodeJS.Timeout | null = null;

/**
 * Polls until `done()` holds or `deadline` (ms since epoch) passes; returns
 * whether it held. Asked at once, then every POLL_MS on one tick that every
 * waiter shares: the waiters' checks run in one synchronous run, so they share
 * one scan of /proc (groupsNow). A daemon stopping 200 busy panes polled each
 * pane's group on a timer of its own, each a scan of /proc.
 */
export function waitUntil(done: () => boolean, deadline: number): Promise<boolean> {
  try {
    if (done()) return Promise.resolve(true);
  } catch (error) {
    return Promise.reject(error);
  }
  if (Date.now() >= deadline) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    waiters.add({ done, deadline, resolve, reject });
    ticker ??= setInterval(pollWaiters, POLL_MS);
  });
}

function pollWaiters(): void {
  for (const waiter of waiters) {
    try {
      const held = waiter.done();
      if (!held && Date.now() < waiter.deadline) continue;
      waiters.delete(waiter);
      waiter.resolve(held);
    } catch (error) {
      waiters.delete(waiter);
      waiter.reject(error);
    }
  }
  if (waiters.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}

// SIGKILL cannot be ignored; only a task stuck in uninterruptible sleep
// outlives this, and a caller must not hang on it forever.
const KILL_PATIENCE_MS = 5_000;

/**
 * SIGKILLs the group's verified members until none is left (new ones forked
 * meanwhile are caught by the next round); returns every pid signalled.
 */
export async function killGroup(pgid: number, anchor: GroupAnchor): Promise<number[]> {
  const killed = new Set<number>();
  await waitUntil(() => {
    for (const pid of signalGroup(pgid, anchor, "SIGKILL")) killed.add(pid);
    return verifiedMembers(pgid, anchor).length === 0;
  }, Date.now() + KILL_PATIENCE_MS);
  return [...killed];
}

/**
 * Reaps those of `pids` that are zombie children of this process, by pid:
 * orphans adopted through PR_SET_CHILD_SUBREAPER. Never pass a pid spawned
 * through child_process, whose exit status belongs to Node.
 */
export function reapAdopted(pids: Iterable<number>): void {
  for (const pid of pids) {
    const stat = processStat(pid);
    if (stat?.state !== "Z" || stat.ppid !== process.pid) continue;
    try {
      waitpid(pid, WNOHANG);
    } catch (error) {
      if (!(error instanceof NativeError && error.errno === ECHILD)) throw error;
    }
  }
}
