import { type MessagePort, parentPort } from "node:worker_threads";
import serializeAddon from "@xterm/addon-serialize";
import unicode11Addon from "@xterm/addon-unicode11";
import xterm from "@xterm/headless";
import { type CaptureOptions, capture } from "./capture.js";
import type { KeyModes } from "./keys.js";
import { answerQueries, WINDOW_REPORTS } from "./terminal-answers.js";

/**
 * The screen models of every pane of the daemon, on a thread of their own:
 * parsing pane output (xterm, ~30 MB/s) no longer competes with reading ptys
 * and writing to viewers on the daemon's main thread. Messages arrive in the
 * order the main thread posted them, which is what makes a request "settled".
 *
 * Fair service: each pane's model has a queue of its own (output, resizes,
 * requests, in stream order), and xterm works through a queue in slices of
 * about 12 ms, yielding to the next turn of this thread between them (see the
 * timer shim below): the panes' queues take turns, and a request waits only
 * for its own pane's queue. One pane's flood costs the others at most a slice
 * per turn; its own backlog is bounded by backpressure (output) and by
 * coalescing (resizes). test/screen-fairness.test.ts proves it.
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
  /**
   * The size of a resize still queued behind output, while nothing has been
   * queued after it: a resize that comes next only changes that size. A flood
   * of resizes costs one reflow of the scrollback, not one each.
   */
  #queuedResize: { cols: number; rows: number } | undefined;

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

  /** xterm queues the write and parses it in slices of its own; the main thread hears when it is done. */
  write(data: string): void {
    this.#queuedResize = undefined;
    this.terminal.write(data, () => {
      this.parsed += data.length;
      reportParsed(this);
    });
  }

  /** Run `fn` once everything received so far has been parsed (xterm runs write callbacks in order). */
  after(fn: () => void): void {
    this.#queuedResize = undefined;
    this.terminal.write("", fn);
  }

  /** In stream order: what came before the resize is parsed at the old size, what comes after at the new one. */
  resize(cols: number, rows: number): void {
    if (this.#queuedResize) {
      this.#queuedResize.cols = cols;
      this.#queuedResize.rows = rows;
      return;
    }
    const size = { cols, rows };
    this.after(() => {
      if (this.#queuedResize === size) this.#queuedResize = undefined;
      this.terminal.resize(size.cols, size.rows);
    });
    this.#queuedResize = size;
  }

  /** Escape sequences that redraw the screen as it is: contents, alternate screen, cursor position and visibility, modes. */
  screen(): string {
    const modes = TRACKED_MODES.map((mode) => `\x1b[?${mode}${this.#modes.get(mode) ? "h" : "l"}`).join("");
    return `\x1b[H\x1b[2J${this.#serialize.serialize({ scrollback: 0 })}${modes}`;
  }
}

if (!parentPort) throw new Error("screen-worker.js runs as a worker thread of venom-mux");
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
const progressed = new Set<Screen>();
function reportParsed(screen: Screen): void {
  if (progressed.size === 0) {
    setTimeout(() => {
      send({ op: "parsed", totals: [...progressed].map((s) => [s.key, s.parsed]) });
      progressed.clear();
    }, PARSED_REPORT_MS);
  }
  progressed.add(screen);
}

function answer(id: number, screen: Screen | undefined, compute: (screen: Screen) => WorkerReply): void {
  if (!screen) {
    send({ op: "reply", id, error: "the pane's screen model is closed" });
    return;
  }
  screen.after(() => {
    try {
      send({ op: "reply", id, result: compute(screen) });
    } catch (error) {
      send({ op: "reply", id, error: error instanceof Error ? error.message : String(error) });
    }
  });
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
      // Requests posted before the close are still answered: they are queued ahead of the dispose.
      return screen?.after(() => screen.terminal.dispose());
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
      return answer(message.id, screen, ({ title, terminal }) => ({
        title,
        cursor: { x: terminal.buffer.active.cursorX, y: terminal.buffer.active.cursorY },
      }));
    case "capture":
      return answer(message.id, screen, (s) => capture(s.terminal, message.options));
  }
}
