import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { AgentNameSchema, DelegationIdSchema, deepFreeze, GrantSchema } from "@venom/proto";
import * as z from "zod";
import { APP_NAME, privateDir, type VenomHome, writeFileAtomic } from "./home.js";
import {
  ancestors,
  isRunning,
  killGroup,
  processStat,
  reapAdopted,
  signalGroup,
  signalProcess,
  verifiedMembers,
  waitUntil,
} from "./proc.js";
import { LayersSchema } from "./sandbox/profile-schema.js";
import { readSmallFile } from "./small-file.js";

// Delegation records (conformance/spec/security-model.txt, "Delegated runs"): one private file per running
// delegated process in $VENOM_HOME/state/delegations, so a daemon can tell a
// delegate's peer process from its ancestry and stop orphans whose owner died.
// The cleanup is cooperative: a same-user process can edit or delete records.

const pid = z.number().int().min(1).max(0x7fffffff);
const startTime = z.number().int().nonnegative();

export const DelegationRecordSchema = z.strictObject({
  id: DelegationIdSchema,
  /** The daemon that started the process; its records are orphans once it is gone. */
  owner: z.strictObject({
    instance: z.string().min(1).max(256),
    /** Which app's daemon it is: a delegate's approvals are relayed to $VENOM_HOME/state/<app>.sock. */
    app: z.string().regex(APP_NAME),
    pid,
    startTime,
  }),
  pid,
  startTime,
  pgid: pid,
  /** The VENOM_PARENT value the process carries. */
  parent: z.string().min(1).max(256),
  depth: z.number().int().min(1).max(9999),
  grant: GrantSchema,
  label: z.string().max(256),
  workspace: z.string().startsWith("/").max(4096),
  /**
   * The Landlock profiles the process runs under, one layer each (none when
   * unconfined): whatever a delegate descending from it asks a daemon to
   * start gets them too. A confined process cannot rewrite this file: the
   * records directory is outside everything a profile lets it write.
   */
  sandbox: LayersSchema.default([]),
  /**
   * The agent whose allow-listed environment and private home the process
   * has (a delegated pane's, and what a tool starts for one): a pane a
   * delegate descending from it asks for gets the same (docs/security-model.md,
   * "A delegate's new pane").
   */
  agent: AgentNameSchema.optional(),
  createdAt: z.iso.datetime(),
});
export type DelegationRecord = z.infer<typeof DelegationRecordSchema>;
export type DelegationOwner = DelegationRecord["owner"];

// Far above any real record; bounds what a planted file can make us read.
const MAX_RECORD_BYTES = 256 * 1024;

/** The file of the record `id`: a process a daemon records starts only once it exists (native's start-gate.ts). */
export function recordPath(home: VenomHome, id: string): string {
  if (!DelegationIdSchema.safeParse(id).success) throw new TypeError(`delegation id ${JSON.stringify(id)}: letters, digits, _ and - only`);
  return join(home.delegations, `${id}.json`);
}

/** Validates and writes the record atomically, mode 0600, in a 0700 directory. */
export function writeRecord(home: VenomHome, record: DelegationRecord): void {
  const valid = DelegationRecordSchema.parse(record);
  const path = recordPath(home, valid.id);
  privateDir(home.root, { followLink: true });
  for (const dir of [home.state, home.delegations]) privateDir(dir);
  // Not fsynced: a record matters only while its process runs, and no process outlives a power loss
  // (listRecords skips a file that one left empty). Each pane's start waited for the disk twice (~0.5 ms on
  // an idle disk here, far more on a busy one) for nothing.
  writeFileAtomic(path, `${JSON.stringify(valid)}\n`, { durable: false });
}

/** Removes the record; returns false if there was none. */
export function removeRecord(home: VenomHome, id: string): boolean {
  try {
    unlinkSync(recordPath(home, id));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Every valid record. Unreadable, oversized, malformed or misnamed files are skipped silently. */
export function listRecords(home: VenomHome): DelegationRecord[] {
  let names: string[];
  try {
    names = readdirSync(home.delegations);
  } catch {
    return [];
  }
  const known = memos.get(home) ?? new Map<string, Memo>();
  const seen = new Map<string, Memo>();
  for (const name of names) {
    const memo = readMemo(home, name, known.get(name));
    if (memo) seen.set(name, memo);
  }
  memos.set(home, seen);
  return [...seen.values()].flatMap((memo) => memo.record ?? []);
}

/**
 * Each record file as last read, while it is that same file: every hello
 * looks its peer's ancestry up in every record, and with 200 panes reading
 * and validating every file again cost each hello 4-6 ms. One lstat per file
 * stays. Records are written as a new file renamed over the old one, so a
 * rewritten record is a new inode; one edited in place changes its size or
 * times. Where the kernel keeps file times at its clock tick's grain (no
 * multigrain timestamps), an edit in place that keeps the size within a tick
 * of the last read goes unseen until the next change; only a process of the
 * same user outside any sandbox can edit a record, and it could as well
 * rewrite it. Only files still listed are kept. A memo's record is handed to
 * every caller, so it is frozen: a caller that changed it would change what
 * every later hello sees.
 */
interface Memo {
  identity: string;
  record: DelegationRecord | null;
}
const memos = new WeakMap<VenomHome, Map<string, Memo>>();

/** The memo of one directory entry: null for a name that is no record's or a file that is gone. */
function readMemo(home: VenomHome, name: string, previous: Memo | undefined): Memo | null {
  const id = name.endsWith(".json") ? name.slice(0, -5) : "";
  if (!previous && !DelegationIdSchema.safeParse(id).success) return null;
  const path = join(home.delegations, name);
  let identity: string;
  try {
    const stat = lstatSync(path, { bigint: true });
    identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.birthtimeNs}`;
  } catch {
    return null;
  }
  if (previous?.identity === identity) return previous;
  // Read after the lstat: a file replaced in between is read new and kept under the old identity, so it is read again next time.
  const record = readRecord(path);
  return { identity, record: record?.id === id ? deepFreeze(record) : null };
}

/** The valid record with this id, or null (none, unreadable or malformed). */
export function findRecord(home: VenomHome, id: string): DelegationRecord | null {
  const record = readRecord(recordPath(home, id));
  return record?.id === id ? record : null;
}

function readRecord(path: string): DelegationRecord | null {
  const bytes = readSmallFile(path, MAX_RECORD_BYTES);
  if (bytes === null) return null;
  try {
    const parsed = DelegationRecordSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The record of `pid` or of its nearest ancestor, matched by pid AND start
 * time, so a record whose process is gone never vouches for a later process
 * with the same pid. Works from process ancestry, not the environment, so a
 * descendant that cleared its markers (`env -i`) is still found.
 */
export function findAncestorRecord(home: VenomHome, pid: number): DelegationRecord | null {
  const records = listRecords(home);
  if (records.length === 0) return null;
  for (const candidate of [pid, ...ancestors(pid)]) {
    const stat = processStat(candidate);
    const match = records.find((record) => record.pid === candidate && record.startTime === stat?.startTime);
    if (match) return match;
  }
  return null;
}

export interface OrphanOutcome {
  id: string;
  /** Pids sent SIGTERM (the recorded process and/or its group's members), each verified by start time. */
  terminated: number[];
  /** Pids still there after the grace period, sent SIGKILL. */
  killed: number[];
}

export interface ReapOptions {
  /** Whether a record's owner daemon still runs; by default, its pid and start time still match a live process. */
  isOwnerAlive?: (owner: DelegationOwner) => boolean;
}

const GRACE_MS = 2_000;

/**
 * Stops the processes of records whose owner is gone, then removes those
 * records. The recorded process is signalled only while its pid and start
 * time still match; its group only while the group's leader matches or has
 * exited (proc.ts, isSameGroup). Everyone gets SIGTERM; whatever remains
 * after 2 s gets SIGKILL.
 */
export async function reapOrphans(home: VenomHome, options: ReapOptions = {}): Promise<OrphanOutcome[]> {
  const isOwnerAlive = options.isOwnerAlive ?? isRunning;
  // A record names its process by pid and start time, so it serves as its own ProcessRef.
  const orphans = listRecords(home).filter((record) => !isOwnerAlive(record.owner));

  const outcomes: OrphanOutcome[] = orphans.map((record) => {
    const terminated = new Set(signalGroup(record.pgid, record, "SIGTERM"));
    // isRunning first: signalling a zombie succeeds, but stops nothing.
    if (!terminated.has(record.pid) && isRunning(record) && signalProcess(record, "SIGTERM")) terminated.add(record.pid);
    return { id: record.id, terminated: [...terminated], killed: [] };
  });

  const gone = (record: DelegationRecord) => !isRunning(record) && verifiedMembers(record.pgid, record).length === 0;
  await waitUntil(() => orphans.every(gone), Date.now() + GRACE_MS);

  for (const [index, record] of orphans.entries()) {
    const outcome = outcomes[index] as OrphanOutcome;
    const killed = new Set<number>();
    if (isRunning(record) && signalProcess(record, "SIGKILL")) killed.add(record.pid);
    for (const pid of await killGroup(record.pgid, record)) killed.add(pid);
    // killGroup waited for the group; a recorded process outside it may still be dying.
    await waitUntil(() => !isRunning(record), Date.now() + GRACE_MS);
    outcome.killed = [...killed];
    // The recorded process itself may be a child_process child of this very
    // process (whose status belongs to Node); only the rest can be adopted orphans.
    reapAdopted([...outcome.terminated, ...killed].filter((pid) => pid !== record.pid));
    removeRecord(home, record.id);
  }
  return outcomes;
}
