import { randomBytes } from "node:crypto";
import type { AnsweredBySchema, InboxEventSchema, InboxQuestionSchema } from "@venom/proto";
import type { z } from "zod";

// venom-orch's inbox (docs/venom-orch.md, "The inbox"): every relayed question
// that waits for the person, from any job at any depth, in one place. Each has
// an id of its own that names it and nothing else: an answer to one that was
// already settled says how it was, and never reaches another.

export type InboxQuestion = z.infer<typeof InboxQuestionSchema>;
export type AnsweredBy = z.infer<typeof AnsweredBySchema>;
export type InboxEvent = z.infer<typeof InboxEventSchema>;
export type Decision = "approve" | "deny";

/** How a question ended. */
export interface Settled {
  decision: Decision;
  by: AnsweredBy;
  reason?: string;
}

/** What `inbox/details` adds to a question: the job's prompt and, for ACP, the tool call as the agent described it. */
export interface QuestionExtras {
  prompt: string;
  acp?: { kind: string | null; title: string | null; locations: string[] };
}

/** An answer that cannot apply: the question named was settled already, or never existed. */
export class NotWaiting extends Error {}

interface Waiting {
  question: InboxQuestion;
  extras: QuestionExtras;
  settle(settled: Settled): void;
}

/** Settled ids remembered, so a late answer says what happened rather than "unknown". */
const SETTLED_KEPT = 4096;

const HOW: Record<AnsweredBy, string> = {
  inbox: "answered in the inbox",
  terminal: "answered on the launching terminal",
  policy: "answered by the approval policy",
  autoApprove: "approved by the launcher's autoApprove",
  "wait-bound": "denied: nobody answered in time",
  "job-bound": "refused: too many questions of its job waited",
  "job-ended": "withdrawn: its job ended",
};

export class Inbox {
  readonly #waiting = new Map<string, Waiting>();
  readonly #settled = new Map<string, string>();
  readonly #watchers = new Set<(event: InboxEvent) => void>();

  /** Questions waiting now, newest first. */
  list(): InboxQuestion[] {
    return [...this.#waiting.values()].map((w) => w.question).reverse();
  }

  get size(): number {
    return this.#waiting.size;
  }

  waitingFor(job: string): number {
    let n = 0;
    for (const w of this.#waiting.values()) if (w.question.job === job) n++;
    return n;
  }

  extras(id: string): { question: InboxQuestion; extras: QuestionExtras } {
    const waiting = this.#waiting.get(id);
    if (!waiting) throw new NotWaiting(this.#why(id));
    return waiting;
  }

  /** Put a question in the inbox; `answered` settles once someone (or a bound) answers it. */
  ask(fields: Omit<InboxQuestion, "id" | "askedAt">, extras: QuestionExtras): { question: InboxQuestion; answered: Promise<Settled> } {
    const question: InboxQuestion = { ...fields, id: `q${randomBytes(8).toString("hex")}`, askedAt: new Date().toISOString() };
    const answered = new Promise<Settled>((resolve) => {
      this.#waiting.set(question.id, { question, extras, settle: resolve });
    });
    this.#emit({ kind: "asked", question });
    return { question, answered };
  }

  /** Answer one waiting question; a question not waiting is NotWaiting, saying why. */
  answer(id: string, settled: Settled): InboxQuestion {
    const waiting = this.#waiting.get(id);
    if (!waiting) throw new NotWaiting(this.#why(id));
    this.#waiting.delete(id);
    this.#settled.set(id, HOW[settled.by]);
    if (this.#settled.size > SETTLED_KEPT) this.#settled.delete(this.#settled.keys().next().value as string);
    waiting.settle(settled);
    this.#emit({ kind: "settled", question: waiting.question, decision: settled.decision, by: settled.by });
    return waiting.question;
  }

  /** A job ended: its questions are withdrawn (denied), and watchers hear of the end. */
  jobEnded(job: { id: string; name: string; state: NonNullable<InboxEvent["job"]>["state"] }): void {
    for (const waiting of [...this.#waiting.values()]) {
      if (waiting.question.job === job.id) this.answer(waiting.question.id, { decision: "deny", by: "job-ended" });
    }
    this.#emit({ kind: "job-ended", job });
  }

  /** Hear every change from now on; the returned function stops it. */
  watch(listener: (event: InboxEvent) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  #why(id: string): string {
    const how = this.#settled.get(id);
    return how ? `question ${id} is no longer waiting: ${how}` : `no question ${id} in the inbox (venom-orch inbox lists those waiting)`;
  }

  #emit(change: Omit<InboxEvent, "waiting">): void {
    const event = { ...change, waiting: this.#waiting.size } as InboxEvent;
    for (const listener of this.#watchers) listener(event);
  }
}
