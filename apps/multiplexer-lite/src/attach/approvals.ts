import type { InboxEventSchema } from "@venom/proto";
import { VenomClient, type VenomHome } from "@venom/runtime/cli";
import type { z } from "zod";

type InboxEvent = z.infer<typeof InboxEventSchema>;

/**
 * venom-orch's inbox as an attached client sees it (docs/venom-orch.md, "Notifications"): how many questions wait
 * for the person, for the status line, and a bell when a job starts waiting or ends. One watching connection to
 * venom-orch's socket, opened in the background (the attach never waits for it) and again at the status interval
 * while venom-orch is not running. A client inside a delegation is refused the inbox: it shows nothing.
 */
export class ApprovalWatch {
  #client: VenomClient | null = null;
  #connecting = false;
  #stopped = false;
  #waiting = 0;
  /** Questions waiting per job: a bell rings when a job goes from none to one. */
  readonly #perJob = new Map<string, number>();

  constructor(
    private readonly home: VenomHome,
    private readonly version: string,
    /** The count changed (redraw the status line); `ring` when the person should hear of it. */
    private readonly changed: (ring: boolean) => void,
  ) {}

  /** "[2 to approve]", or nothing when no question waits. */
  get notice(): string {
    return this.#waiting > 0 ? `[${this.#waiting} to approve]` : "";
  }

  /** Connect when not connected (called at attach and at every status poll). */
  poll(): void {
    if (this.#client || this.#connecting || this.#stopped) return;
    this.#connecting = true;
    void this.#connect().finally(() => {
      this.#connecting = false;
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#client?.close();
  }

  async #connect(): Promise<void> {
    let client: VenomClient;
    try {
      client = await VenomClient.connect(this.home.socket("orch"), {
        client: { name: "venom-mux", version: this.version },
        noTools: true,
        onEvent: (method, params) => method === "event/inbox" && this.#onEvent(params as InboxEvent),
        onClose: () => {
          this.#client = null;
          this.#set(0, false);
        },
      });
    } catch {
      return;
    }
    if (this.#stopped) return client.close();
    try {
      const { questions } = await client.request("inbox/list", { watch: true });
      this.#client = client;
      this.#perJob.clear();
      for (const q of questions) this.#perJob.set(q.job, (this.#perJob.get(q.job) ?? 0) + 1);
      this.#set(questions.length, false);
    } catch {
      // Refused (a client inside a delegation) or gone: nothing to show.
      client.close();
    }
  }

  #onEvent(event: InboxEvent): void {
    const job = event.question?.job;
    let ring = event.kind === "job-ended";
    if (job && event.kind === "asked") {
      const before = this.#perJob.get(job) ?? 0;
      this.#perJob.set(job, before + 1);
      ring = before === 0;
    }
    if (job && event.kind === "settled") {
      const left = (this.#perJob.get(job) ?? 1) - 1;
      if (left > 0) this.#perJob.set(job, left);
      else this.#perJob.delete(job);
    }
    this.#set(event.waiting, ring);
  }

  #set(waiting: number, ring: boolean): void {
    const moved = waiting !== this.#waiting;
    this.#waiting = waiting;
    if (moved || ring) this.changed(ring);
  }
}
