import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { DelegationIdSchema, JobStateSchema } from "@venom/proto";
import { privateDir, readSmallFile, type VenomHome, writeFileAtomicAsync } from "@venom/runtime";
import * as z from "zod";

// Jobs: one delegated run each, in one venom-mux pane. Their state comes from
// the process and the relay, never from the screen. Each job is a private file
// in $VENOM_HOME/state/orch-jobs, so a venom-orch that was killed can say on
// its next start which runs it lost (venom-mux stopped their panes).

export const JobRecordSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]{1,32}$/),
  /** The pane's label: agent name and a number, e.g. "claude-1". */
  name: z.string(),
  agent: z.string(),
  /** The canonical cwd it runs in. */
  cwd: z.string(),
  state: JobStateSchema,
  background: z.boolean(),
  /** The delegation depth of the session that launched it. */
  launcher: z.strictObject({ depth: z.number().int() }),
  /**
   * The delegation records from the top of the tree down to its launcher's,
   * then its pane's (venom-mux's record) once it runs: who may see it
   * (packages/runtime/src/visibility.ts). Empty for the owner's job until it runs.
   */
  lineage: z.array(DelegationIdSchema),
  pid: z.number().int().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** Why it ended, in our own words (never the agent's output). */
  note: z.string().nullable(),
  /** How venom-orch talks to the agent. */
  transport: z.enum(["cli", "acp"]).default("cli"),
  /** ACP: the agent-to-client requests (fs/*, terminal/*, …) venom-orch refused. */
  refusedRequests: z.number().int().default(0),
  /** The relayed approval it waits for (label and tool), while awaiting approval. */
  pending: z.string().nullable().default(null),
  /** The `[hosts.NAME]` it runs on (docs/remote.md); null on this machine. */
  host: z.string().nullable().default(null),
  /** On a host: the commit its workspace had checked out when the job started, what `diff` shows changes since; null outside a repository. */
  hostBase: z.string().nullable().default(null),
  /** Its git worktree (`run --worktree`), and what the job changed there once it ended (docs/venom-orch.md, "Parallel agents and worktrees"). */
  worktree: z
    .strictObject({
      repo: z.string(),
      base: z.string(),
      path: z.string(),
      branch: z.string(),
      commits: z.array(z.string()).default([]),
      stat: z.string().default(""),
      untracked: z.array(z.string()).default([]),
      /** Set once `venom-orch clean` removed it. */
      removed: z.boolean().default(false),
    })
    .nullable()
    .default(null),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

export const FINAL_STATES: readonly JobRecord["state"][] = ["done", "declined", "failed", "cancelled", "timeout"];

/** Jobs on file beyond this many finished ones are forgotten, oldest first. */
const KEEP_FINISHED = 200;
/**
 * The largest job file read back: more than any record venom-orch writes. Its
 * cwd (at most PATH_MAX, 4096 bytes, each escaped to at most 6 in JSON) is the
 * only field that grows with what a caller chose; at 16 KiB a delegate's job in
 * a directory named with control bytes was written, then skipped when read,
 * and so missing from `jobs` and beyond `cancel`.
 */
const MAX_FILE_BYTES = 64 * 1024;

/** One job's write that has not finished: the record it puts on file (the newest saved, until it begins), and when it is done. */
interface PendingWrite {
  record: JobRecord;
  begun: boolean;
  written: Promise<void>;
}

export class JobStore {
  readonly dir: string;
  /** Per job, its last write not yet finished. */
  readonly #pending = new Map<string, PendingWrite>();

  constructor(home: VenomHome) {
    this.dir = join(home.state, "orch-jobs");
  }

  /**
   * Put the job on file, off the event loop: a launch went on to venom-mux only
   * after its first record was synced to disk. One job's writes go one after
   * another, and one that has not begun takes the newest record, so the file
   * ends with the last saved. Resolves once this record (or a newer) is on file.
   */
  save(job: JobRecord): Promise<void> {
    const record = { ...job };
    const last = this.#pending.get(job.id);
    if (last && !last.begun) {
      last.record = record;
      return last.written;
    }
    const write: PendingWrite = { record, begun: false, written: Promise.resolve() };
    write.written = (last?.written.catch(() => undefined) ?? Promise.resolve()).then(() => {
      write.begun = true;
      privateDir(this.dir);
      return writeFileAtomicAsync(join(this.dir, `${job.id}.json`), `${JSON.stringify(write.record)}\n`);
    });
    this.#pending.set(job.id, write);
    const forget = () => {
      if (this.#pending.get(job.id) === write) this.#pending.delete(job.id);
    };
    write.written.then(forget, forget);
    return write.written;
  }

  /** Every write begun or queued has finished (the daemon is stopping). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.#pending.values()].map((write) => write.written));
  }

  /** Every job, oldest first: on file (a planted, oversized or malformed file is skipped), or saved and not yet written. */
  load(): JobRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      names = [];
    }
    const jobs = new Map<string, JobRecord>();
    for (const name of names) {
      const job = name.endsWith(".json") ? readJob(join(this.dir, name)) : null;
      if (job) jobs.set(job.id, job);
    }
    for (const [id, write] of this.#pending) jobs.set(id, write.record);
    return [...jobs.values()].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  /** Keep the newest finished jobs on file; running ones always stay. */
  prune(jobs: readonly JobRecord[]): void {
    const finished = jobs.filter((j) => FINAL_STATES.includes(j.state));
    for (const job of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      try {
        unlinkSync(join(this.dir, `${job.id}.json`));
      } catch {
        // Already gone.
      }
    }
  }
}

/** A planted, oversized or malformed job file is skipped. */
function readJob(path: string): JobRecord | null {
  const bytes = readSmallFile(path, MAX_FILE_BYTES);
  if (bytes === null) return null;
  try {
    const parsed = JobRecordSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
