import { closeSync, fstatSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openPrivateAppend, readSmallFile, type VenomHome } from "@venom/runtime";
import type { AnsweredBy, Decision, InboxQuestion } from "./inbox.js";
import { redactSecrets } from "./redact.js";

// The approval history (docs/venom-orch.md, "History"): one JSON line per
// question settled, whoever answered it, in $VENOM_HOME/logs/approvals.jsonl
// (0600). At ROTATE_BYTES it becomes approvals.1.jsonl (the one before is
// dropped), so the two files hold at most twice that.

export const ROTATE_BYTES = 4 * 1024 * 1024;

export interface HistoryEntry {
  /** When it was asked and when it was settled. */
  askedAt: string;
  answeredAt: string;
  job: string;
  name: string;
  /** The chain it came through, e.g. "[echo via claude-1 depth 1]". */
  label: string;
  tool: string;
  risk: string;
  /** Redacted as progress lines are: what a secret-shaped token looks like never stays. */
  summary: string;
  by: AnsweredBy;
  decision: Decision;
  reason?: string;
}

export function historyFiles(home: VenomHome): { current: string; previous: string } {
  return { current: join(home.logs, "approvals.jsonl"), previous: join(home.logs, "approvals.1.jsonl") };
}

export class ApprovalHistory {
  constructor(
    private readonly home: VenomHome,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Append one settled question; a write that fails is reported and the job goes on. */
  append(question: InboxQuestion, settled: { decision: Decision; by: AnsweredBy; reason?: string | undefined }): void {
    const entry: HistoryEntry = {
      askedAt: question.askedAt,
      answeredAt: new Date().toISOString(),
      job: question.job,
      name: question.name,
      label: question.label,
      tool: question.tool,
      risk: question.risk,
      summary: redactSecrets(question.summary),
      by: settled.by,
      decision: settled.decision,
      ...(settled.reason ? { reason: redactSecrets(settled.reason).slice(0, 512) } : {}),
    };
    const { current, previous } = historyFiles(this.home);
    try {
      this.home.ensure();
      let fd = openPrivateAppend(current);
      if (fstatSync(fd).size >= ROTATE_BYTES) {
        closeSync(fd);
        renameSync(current, previous);
        fd = openPrivateAppend(current);
      }
      try {
        // One write of one line to an O_APPEND file: a reader sees it whole or not at all.
        writeSync(fd, `${JSON.stringify(entry)}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      this.onError(error as Error);
    }
  }
}

const ENTRY_FIELDS = ["askedAt", "answeredAt", "job", "name", "label", "tool", "risk", "summary", "by", "decision"] as const;

/** The history, oldest first: both files, each line that parses (a torn, planted or incomplete line is skipped). */
export function readHistory(home: VenomHome): HistoryEntry[] {
  const { current, previous } = historyFiles(home);
  const entries: HistoryEntry[] = [];
  for (const path of [previous, current]) {
    const bytes = readSmallFile(path, 2 * ROTATE_BYTES);
    for (const line of bytes?.toString("utf8").split("\n") ?? []) {
      try {
        const entry = JSON.parse(line) as HistoryEntry;
        if (ENTRY_FIELDS.every((field) => typeof entry?.[field] === "string")) entries.push(entry);
      } catch {
        // Not a line we wrote whole.
      }
    }
  }
  return entries;
}
