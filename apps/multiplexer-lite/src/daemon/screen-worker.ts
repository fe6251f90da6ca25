import { type MessagePort, parentPort } from "node:worker_threads";
import serializeAddon from "@xterm/addon-serialize";
import unicode11Addon from "@xterm/addon-unicode11";
import xterm from "@xterm/headless";
import type { KeyModes } from "../common/keys.js";
import { type CaptureOptions, capture } from "./capture.js";
import { reuseEmptyLineMaps } from "./line-maps.js";
import { answerQueries, WINDOW_REPORTS } from "./terminal-answers.js";

/**
 * The screen models of every pane of the daemon, on a thread of their own:
 * parsing pane output (xterm, ~30 MB/s) no longer competes with reading ptys
 * and writing to viewers on the daemon's main thread. Messages arrive in the
 * order the main thread posted them, which is what makes a request "settled".
 *
 * Who is parsed first: each model keeps what it was sent (output, resizes,
 * requests, in stream order) in a queue of its own, and xterm is given it in
 * two ways. A request (capture, screen, settled…; not state, answered from
 * what is parsed so far) gives xterm its model's
 * whole queue at once: that model is parsed up to the request and answered
 * ahead of every other model's backlog, so an answer waits for its own pane's
 * output, not for the others'. Otherwise background turns hand the models
 * with queued output a share each of TURN_CHARS, in turns; a turn starts once
 * xterm has parsed the last one's, and requests come in between turns. Other
 * panes' backlogs cost a request at most one turn for every 12 ms slice of
 * xterm's parsing (it yields between writes); test/screen-backlog.test.ts and
 * test/screen-fairness.test.ts prove it.
 */

/** Main thread → worker. `key` names a pane's model; requests carry an `id` for the reply. */
export type ToWorker =
  | { op: "open"; key: number; cols: number; rows: number; scrollback: number }
  | { op: "write"; key: number; data: string }
  | { op: "resize"; key: number; cols: number; rows: number }
  | { op: "close"; key: number }
  | { op: "settled"; key: number; id: number }
  | { op: "screen"; key: number; id: number }
  | { op: "modes"; key: number; id: number }
  | { op: "state"; key: number; id: number }
  | { op: "capture"; key: number; id: number; options: CaptureOptions };

/** What the program shows of itself: its title (bounded), and where its cursor is. */
export interface ScreenState {
  title: string;
  cursor: { x: number; y: number };
}

export type WorkerReply = string | KeyModes | ScreenState | null;

/** Worker → main thread: characters parsed so far per model (for backpressure), a model's answer to a terminal query, or a request's answer. */
export type FromWorker =
  | { op: "parsed"; totals: [key: number, parsed: number][] }
  | { op: "answer"; key: number; data: string }
  | { op: "reply"; id: number; result: WorkerReply }
  | { op: "reply"; id: number; error: string };

/**
 * xterm starts parsing, and yields between its 12 ms parsing slices, with a
 * delay-less setTimeout: at least 1 ms in Node, during which a busy worker
 * idles (a tenth to a fifth of its throughput, measured). This thread draws
 * nothing, so a yield only has to let messages in, and the next turn of its
 * event loop does that. Timers with a delay stay timers.
 */
const timeout = globalThis.setTimeout;
const clear = globalThis.clearTimeout;
const immediates = new WeakSet<object>();
globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  if (ms) return timeout(fn, ms, ...args);
  const immediate = setImmediate(fn, ...args);
  immediates.add(immediate);
  return immediate;
}) as typeof setTimeout;
globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
  if (typeof handle === "object" && handle !== null && immediates.has(handle)) clearImmediate(handle as unknown as NodeJS.Immediate);
  else clear(handle);
}) as typeof clearTimeout;

/** A title longer than this is cut: it is only ever shown in a list. */
const MAX_TITLE = 256;

/** DEC private modes the serializer does not restore but a re-attached client must get: cursor visibility, SGR mouse encoding. */
const TRACKED_MODES = [25, 1006] as const;

/** A resize waiting in a model's queue: one that comes next while it waits only changes its size. */
interface QueuedResize {
  cols: number;
  rows: number;
}

class Screen {
  readonly terminal: xterm.Terminal;
  readonly #serialize = new serializeAddon.SerializeAddon();
  /** Set and reset by the program (`CSI ? 25 l`, `CSI ? 1006 h`); starts as a fresh terminal's. */
  readonly #modes = new Map<number, boolean>([
    [25, true],
    [1006, false],
  ]);
  parsed = 0;
  title = "";
  /** In the line of models waiting for a background turn (`waiting`). */
  inLine = false;
  /** The progress report this model's last parse went into (`progressed`). */
  reportedIn = -1;
  /** What this model was sent and xterm has not been given yet: output, resizes, and what to run once what came before is parsed. */
  #queue: (string | QueuedResize | (() => void))[] = [];

  constructor(
    readonly key: number,
    cols: number,
    rows: number,
    scrollback: number,
  ) {
    this.terminal = new xterm.Terminal({
      cols,
      rows,
      scrollback,
      allowProposedApi: true,
      windowOptions: WINDOW_REPORTS,
      // tmux's scroll-on-clear: clearing the whole screen (ED2, `clear`, C-l) scrolls what it showed into history.
      scrollOnEraseInDisplay: true,
    });
    reuseEmptyLineMaps(this.terminal);
    this.terminal.loadAddon(this.#serialize);
    // Character widths of Unicode 11 (emoji and East Asian wide characters take two cells), as tmux's wcwidth gives them.
    this.terminal.loadAddon(new unicode11Addon.Unicode11Addon());
    this.terminal.unicode.activeVersion = "11";
    answerQueries(this.terminal, (data) => send({ op: "answer", key, data }));
    this.terminal.onTitleChange((title) => {
      this.title = title.slice(0, MAX_TITLE);
    });
    for (const [final, on] of [
      ["h", true],
      ["l", false],
    ] as const) {
      this.terminal.parser.registerCsiHandler({ prefix: "?", final }, (params) => {
        for (const param of params) if (typeof param === "number" && this.#modes.has(param)) this.#modes.set(param, on);
        return false; // observed only: xterm still handles the sequence itself
      });
    }
  }

  /** Queued, to be parsed in a background turn or ahead of a request. */
  write(data: string): void {
    this.#queue.push(data);
    waitForTurn(this);
  }

  /**
   * What came before the first resize still queued is parsed at the old size,
   * what comes after it at the new one. A burst of resizes costs one reflow of
   * the scrollback, not one each: a resize still queued, with no request after
   * it, takes the new size. The program's redraws between them (it redraws on
   * each SIGWINCH) do not split the burst; they are parsed at the last size,
   * as the program reads its size when it redraws. A request keeps what came
   * before it at the sizes it was asked at.
   */
  resize(cols: number, rows: number): void {
    const queued = this.#queue.findLast((item) => typeof item !== "string");
    if (typeof queued === "object") Object.assign(queued, { cols, rows });
    else this.#queue.push({ cols, rows });
    waitForTurn(this);
  }

  /** Run `fn` once everything received so far has been parsed: all of it goes to xterm now, ahead of other models' queues. */
  after(fn: () => void): void {
    this.#queue.push(fn);
    this.handOver(Number.POSITIVE_INFINITY);
  }

  /** Closed: what was asked before is answered; output after the last request is never parsed, as nobody can see it. */
  close(): void {
    // Looked up, not assumed: a model out of `waiting` for its background turn is still inLine, and splice(-1) would take out another.
    const at = waiting.indexOf(this);
    if (at !== -1) waiting.splice(at, 1);
    this.inLine = false;
    const lastRequest = this.#queue.findLastIndex((item) => typeof item === "function");
    this.#queue.length = lastRequest + 1;
    this.after(() => this.terminal.dispose());
  }

  /** Is output (or a resize) still waiting to be given to xterm? */
  get queued(): boolean {
    return this.#queue.length > 0;
  }

  /**
   * Give xterm the queue's output up to `chars` characters (whole writes, at
   * least one) and what is queued between them; xterm parses in order, and
   * reports progress as it goes. Returns the characters given.
   */
  handOver(chars: number): number {
    let given = 0;
    let taken = 0;
    const output: string[] = [];
    let joined = 0;
    for (const item of this.#queue) {
      if (typeof item === "string") {
        if (given >= chars) break;
        // Small pieces (a line each, from many busy panes) go to xterm as one write; large ones as they came.
        if (joined + item.length > WRITE_CHARS) this.#parse(output.splice(0));
        joined = output.push(item) === 1 ? item.length : joined + item.length;
        given += item.length;
      } else {
        const { terminal } = this;
        this.#parse(output.splice(0), typeof item === "function" ? item : () => terminal.resize(item.cols, item.rows));
      }
      taken++;
    }
    this.#parse(output);
    this.#queue.splice(0, taken);
    return given;
  }

  /**
   * One write to xterm: `then` runs as soon as the output is parsed, in the
   * same callback (a write of its own would wait for another turn of this
   * thread: xterm yields between writes once 12 ms have passed, which on a
   * machine short of CPU is every time).
   */
  #parse(output: string[], then?: () => void): void {
    const data = output.length === 1 ? (output[0] as string) : output.join("");
    if (data === "" && !then) return;
    this.terminal.write(data, () => {
      if (data !== "") {
        this.parsed += data.length;
        reportParsed(this);
      }
      then?.();
    });
  }

  /** Escape sequences that redraw the screen as it is: contents, alternate screen, cursor position and visibility, modes. */
  screen(): string {
    const modes = TRACKED_MODES.map((mode) => `\x1b[?${mode}${this.#modes.get(mode) ? "h" : "l"}`).join("");
    return `\x1b[H\x1b[2J${this.#serialize.serialize({ scrollback: 0 })}${modes}`;
  }
}

/**
 * Output handed to xterm in one background turn, shared by the models
 * waiting: at most this many characters (about 2 ms of parsing) and this many
 * models (each a write of its own to xterm, with its own overhead): the most a
 * request waits for other panes' output before its own is parsed. With 200
 * busy panes, a turn of all of them kept a request waiting behind 200 writes.
 */
const TURN_CHARS = 64 * 1024;
const TURN_MODELS = 8;
/** Queued output is joined into writes to xterm of at most this many characters (one pty batch). */
const WRITE_CHARS = 64 * 1024;
/**
 * Models with output queued, in the order of their turns. An array and a flag
 * on each model, not a Set: a Set this busy (20,000 writes a second from 200
 * panes, each model taken out and put back every turn) rehashed its table all
 * the time, and V8 put those tables straight into the old generation: some
 * 2 MB/s of garbage that only a collection of the worker's whole heap freed.
 */
const waiting: Screen[] = [];
let turnScheduled = false;

function waitForTurn(screen: Screen): void {
  if (!screen.inLine) {
    screen.inLine = true;
    waiting.push(screen);
  }
  if (!turnScheduled) {
    turnScheduled = true;
    setImmediate(backgroundTurn);
  }
}

/**
 * Each waiting model, in order, is given its share of TURN_CHARS until the
 * turn's are all given; those left wait for the next turn, and those served
 * go to the back of the line. xterm parses what it was given on the next turn
 * of this thread's event loop (see the timer shim), ahead of the next
 * background turn, which is queued after it.
 */
function backgroundTurn(): void {
  turnScheduled = false;
  let chars = TURN_CHARS;
  const served = waiting.splice(0, TURN_MODELS);
  const share = Math.ceil(TURN_CHARS / served.length);
  let given = 0;
  for (const screen of served) {
    if (chars <= 0) break;
    chars -= screen.handOver(Math.min(share, chars));
    given++;
    if (screen.queued) waiting.push(screen);
    else screen.inLine = false;
  }
  // Those the turn's characters did not reach keep their places at the front.
  waiting.unshift(...served.slice(given));
  if (waiting.length > 0) {
    turnScheduled = true;
    setImmediate(backgroundTurn);
  }
}

if (!parentPort) throw new Error("the screen worker runs as a worker thread of venom-mux");
const port: MessagePort = parentPort;
const send = (message: FromWorker) => port.postMessage(message);
const screens = new Map<number, Screen>();

/**
 * Progress is reported for every model that moved, in one message every
 * PARSED_REPORT_MS: it only serves backpressure (pause a pane's program past
 * the high-water mark, resume it under the low one, a quarter of a mebibyte
 * and ~8 ms of parsing apart), and with many busy panes a message every turn
 * of this thread took a quarter of its time.
 */
const PARSED_REPORT_MS = 5;
const progressed: Screen[] = [];
/** Numbers the reports, so that a model is listed once in each (an array for the reason `waiting` is one). */
let report = 0;
function reportParsed(screen: Screen): void {
  if (progressed.length === 0) {
    setTimeout(() => {
      send({ op: "parsed", totals: progressed.map((s) => [s.key, s.parsed]) });
      progressed.length = 0;
      report++;
    }, PARSED_REPORT_MS);
  }
  if (screen.reportedIn !== report) {
    screen.reportedIn = report;
    progressed.push(screen);
  }
}

/** Answers request `id` with `compute(screen)` now, or with why it cannot. */
function reply(id: number, screen: Screen | undefined, compute: (screen: Screen) => WorkerReply): void {
  if (!screen) {
    send({ op: "reply", id, error: "the pane's screen model is closed" });
    return;
  }
  try {
    send({ op: "reply", id, result: compute(screen) });
  } catch (error) {
    send({ op: "reply", id, error: error instanceof Error ? error.message : String(error) });
  }
}

/** Answers request `id` once the model has parsed everything posted before it. */
function answer(id: number, screen: Screen | undefined, compute: (screen: Screen) => WorkerReply): void {
  if (screen) screen.after(() => reply(id, screen, compute));
  else reply(id, screen, compute);
}

/** The main thread sends its messages in batches, one per turn of its event loop, in the order it posted them. */
port.on("message", (batch: ToWorker[]) => {
  for (const message of batch) handle(message);
});

function handle(message: ToWorker) {
  const screen = screens.get(message.key);
  switch (message.op) {
    case "open":
      screens.set(message.key, new Screen(message.key, message.cols, message.rows, message.scrollback));
      return;
    case "write":
      return screen?.write(message.data);
    case "resize":
      return screen?.resize(message.cols, message.rows);
    case "close":
      screens.delete(message.key);
      return screen?.close();
    case "settled":
      return answer(message.id, screen, () => null);
    case "screen":
      return answer(message.id, screen, (s) => s.screen());
    case "modes":
      return answer(message.id, screen, ({ terminal: { modes } }) => ({
        applicationCursor: modes.applicationCursorKeysMode,
        applicationKeypad: modes.applicationKeypadMode,
        bracketedPaste: modes.bracketedPasteMode,
      }));
    case "state":
      // What is parsed so far, at once, as tmux shows what it has read: a listing (ls, an attached client's status
      // line) of panes under a flood waited seconds for every pane's backlog to be parsed first.
      return reply(message.id, screen, ({ title, terminal }) => ({
        title,
        cursor: { x: terminal.buffer.active.cursorX, y: terminal.buffer.active.cursorY },
      }));
    case "capture":
      return answer(message.id, screen, (s) => capture(s.terminal, message.options));
  }
}
