import { Worker } from "node:worker_threads";
import type { KeyModes } from "../common/keys.js";
import type { CaptureOptions } from "./capture.js";
import type { FromWorker, ScreenState, ToWorker, WorkerReply } from "./screen-worker.js";

/**
 * The model may lag the pty by this many characters before the pane's program
 * is paused (backpressure, bounded memory); it resumes under the low mark.
 * Small on purpose: output queued in the worker outlives a young-generation
 * GC or two and is promoted, so lag is paid in old-space growth (under the
 * 200 MB flood test, 8 Mi of lag cost about twice the daemon's peak RSS
 * growth of 1 Mi, for no more throughput). 256 Ki is still ~8 ms of parsing:
 * time for the main thread to hear of progress and resume the pty.
 */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/**
 * The same for every model of the daemon together: with hundreds of busy
 * panes and a worker short of CPU, a mebibyte each would let hundreds of
 * mebibytes of output wait in the worker's heap (and its garbage collections). Past
 * the high mark, a pane that writes with more than SMALL_LAG of its own
 * unparsed is paused until the total is back under the low mark; a pane with
 * less (a prompt, an echo) is never paused for the others' output.
 */
const TOTAL_HIGH_WATER = 4 * 1024 * 1024;
const TOTAL_LOW_WATER = 1024 * 1024;
const SMALL_LAG = 16 * 1024;

/**
 * The daemon's one screen worker, shared by all its panes (two cores: one
 * thread reads ptys and feeds viewers, one parses). Started with the first
 * pane, so CLI commands that load this module never start it. It is a thread
 * of the daemon's process, so it dies with the daemon, and it is unref'd so it
 * never keeps a daemon alive that has nothing else to do. Its code is the
 * bundle of screen-worker.ts that the package's build makes next to this
 * module (scripts/bundle.mjs): one file to load, not tsc's modules and xterm's.
 */
class ScreenWorker {
  readonly #worker = new Worker(new URL("./screen-worker.cjs", import.meta.url));
  readonly #models = new Map<number, ScreenModel>();
  readonly #replies = new Map<number, { resolve(value: WorkerReply): void; reject(error: Error): void }>();
  #nextKey = 1;
  #nextId = 1;
  #outgoing: ToWorker[] = [];
  /** Characters written to the models and not parsed yet, all models together. */
  lag = 0;
  /** The models whose pane is paused, each resumed once it and the total have caught up. */
  readonly paused = new Set<ScreenModel>();

  constructor() {
    this.#worker.on("message", (message: FromWorker) => this.#onMessage(message));
    // A screen model that throws is a daemon bug: fail as loudly as when the models ran on the main thread.
    this.#worker.on("error", (error) => {
      throw error;
    });
    // After the listeners: adding a "message" listener refs the worker again.
    this.#worker.unref();
  }

  open(model: ScreenModel, size: { cols: number; rows: number; scrollback: number }): number {
    const key = this.#nextKey++;
    this.#models.set(key, model);
    this.post({ op: "open", key, ...size });
    return key;
  }

  close(key: number): void {
    this.#models.delete(key);
    this.post({ op: "close", key });
  }

  /**
   * Messages go to the worker in one batch per turn of the event loop: with
   * many busy panes, a message per pane's output cost both threads more than
   * the output itself (200 panes printing every 10 ms: 20,000 messages a
   * second). Order is kept: one queue, sent as one array. A request sends the
   * batch at once (request()).
   */
  post(message: ToWorker): void {
    if (this.#outgoing.length === 0) setImmediate(() => this.#send());
    this.#outgoing.push(message);
  }

  #send(): void {
    // A request may have sent the batch this turn was to send.
    if (this.#outgoing.length === 0) return;
    const batch = this.#outgoing;
    this.#outgoing = [];
    this.#worker.postMessage(batch);
  }

  /** Answered by the worker once it has parsed everything posted before the request; "state" at once, from what it has parsed. */
  request(
    message: { op: "settled" | "screen" | "modes" | "state"; key: number } | { op: "capture"; key: number; options: CaptureOptions },
  ): Promise<WorkerReply> {
    const id = this.#nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.#replies.set(id, { resolve, reject });
      // Sent now, with what was posted before it (order kept), not at the end of this turn: on a daemon reading
      // hundreds of busy ptys, the rest of the turn's reads put a capture some 40 ms (p99) behind.
      this.#outgoing.push({ ...message, id });
      this.#send();
    });
  }

  #onMessage(message: FromWorker): void {
    if (message.op === "parsed") {
      for (const [key, parsed] of message.totals) this.#models.get(key)?.parsedUpTo(parsed);
      for (const model of this.paused) model.resumeIfCaughtUp();
      return;
    }
    if (message.op === "answer") {
      this.#models.get(message.key)?.answer(message.data);
      return;
    }
    const reply = this.#replies.get(message.id);
    this.#replies.delete(message.id);
    if ("error" in message) reply?.reject(new Error(message.error));
    else reply?.resolve(message.result);
  }
}

let shared: ScreenWorker | undefined;
function sharedWorker(): ScreenWorker {
  shared ??= new ScreenWorker();
  return shared;
}

/**
 * A pane's screen model (@xterm/headless, the truth for capture and redraw),
 * as seen from the main thread: output goes in with write(), requests are
 * answered once the worker has parsed everything written before them.
 */
export class ScreenModel {
  readonly #worker = sharedWorker();
  readonly #key: number;
  #written = 0;
  #parsed = 0;
  #lagging = false;
  #closed = false;

  /**
   * `backpressure(true)` when the model lags past the high-water mark, `(false)` once it is back under the low one;
   * `answer(data)` when the program asked the terminal something (cursor position, attributes…): the answer goes to the program.
   */
  constructor(
    size: { cols: number; rows: number; scrollback: number },
    private readonly backpressure: (lagging: boolean) => void,
    readonly answer: (data: string) => void,
  ) {
    this.#key = this.#worker.open(this, size);
  }

  write(data: string): void {
    if (this.#closed) return;
    this.#written += data.length;
    this.#worker.lag += data.length;
    this.#worker.post({ op: "write", key: this.#key, data });
    const lag = this.#written - this.#parsed;
    if (!this.#lagging && (lag > HIGH_WATER || (this.#worker.lag > TOTAL_HIGH_WATER && lag > SMALL_LAG))) {
      this.#lagging = true;
      this.#worker.paused.add(this);
      this.backpressure(true);
    }
  }

  /** Called by the worker handle with the characters parsed so far. */
  parsedUpTo(parsed: number): void {
    this.#worker.lag -= parsed - this.#parsed;
    this.#parsed = parsed;
  }

  /** Resume the pane once its model is under the low mark and every model together under theirs. */
  resumeIfCaughtUp(): void {
    if (this.#written - this.#parsed < LOW_WATER && this.#worker.lag < TOTAL_LOW_WATER) {
      this.#lagging = false;
      this.#worker.paused.delete(this);
      this.backpressure(false);
    }
  }

  resize(cols: number, rows: number): void {
    if (!this.#closed) this.#worker.post({ op: "resize", key: this.#key, cols, rows });
  }

  /** Resolves once everything written so far has been parsed. */
  async settled(): Promise<void> {
    await this.#request({ op: "settled", key: this.#key });
  }

  /** Escape sequences that redraw the screen as it is after everything written so far. */
  async screen(): Promise<string> {
    return (await this.#request({ op: "screen", key: this.#key })) as string;
  }

  /** The modes the program has set that change what its keys are (application cursor and keypad, bracketed paste). */
  async modes(): Promise<KeyModes> {
    return (await this.#request({ op: "modes", key: this.#key })) as KeyModes;
  }

  /** The title the program set and its cursor, as far as its output is parsed: a busy pane's may be a moment behind. */
  async state(): Promise<ScreenState> {
    return (await this.#request({ op: "state", key: this.#key })) as ScreenState;
  }

  async capture(options: CaptureOptions): Promise<string> {
    return (await this.#request({ op: "capture", key: this.#key, options })) as string;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Whatever it still had unparsed will never be, as far as the others' backpressure goes.
    this.#worker.lag -= this.#written - this.#parsed;
    this.#worker.paused.delete(this);
    this.#worker.close(this.#key);
  }

  #request(message: Parameters<ScreenWorker["request"]>[0]): Promise<WorkerReply> {
    if (this.#closed) return Promise.reject(new Error("the pane's screen model is closed"));
    return this.#worker.request(message);
  }
}
