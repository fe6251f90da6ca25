import { constants } from "node:os";
import { afterRecord, closeOnExecAboveStderr } from "@venom/native";
import { ErrorCode, type PaneInfo, ProtocolError } from "@venom/proto";
import type { SandboxedCommand } from "@venom/runtime";
import * as pty from "node-pty";
import type { KeyModes } from "../common/keys.js";
import type { CaptureOptions } from "./capture.js";
import { foreground } from "./foreground.js";
import { OutputFilter } from "./output-filter.js";
import { PipeProcess } from "./pipe-process.js";
import { keepTailAtExit } from "./pty-tail.js";
import { ScreenModel } from "./screen-model.js";

/** Someone watching a pane: gets its output live, or a redraw after falling behind. */
export interface Viewer {
  readonly id: string;
  /** The size its terminal gave the pane when it attached, if it gave one. */
  readonly size?: { cols: number; rows: number };
  /** Bytes written to this viewer and not yet taken by it. */
  backlog(): number;
  output(data: string): void;
  redraw(screen: string): void;
  exited(info: PaneInfo): void;
  /** Called once when the viewer has taken all it was sent. */
  onDrain(callback: () => void): void;
}

export interface PaneSpec {
  id: string;
  index: number;
  name: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  depth: number;
  envPolicy: "inherit" | "delegated";
  scrollback: number;
  /** OSC 52 clipboard writes reach viewers' terminals (`[mux] allow_clipboard`). */
  allowClipboard: boolean;
  /** What to spawn instead of argv when the pane is confined (the sandbox launcher); argv stays what the pane reports. */
  launch?: SandboxedCommand;
  /** The pane's delegation record's file: its program starts once the file exists (native's start-gate.ts). */
  record: string;
  /** "pipe": stdio pipes instead of a pty (an ACP agent); the screen shows its stderr. */
  mode: "pty" | "pipe";
}

/** What a Pane uses of its program: node-pty's IPty, or a PipeProcess offering the same. */
interface PaneProcess {
  readonly pid: number;
  onData(listener: (data: string) => void): unknown;
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): unknown;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
}

/** Output this recent means the program is still answering: it is not yet waiting for input. */
const QUIET_MS = 200;

/** Input waiting for a pane's program to read it, at most (a paste of a large file fits; a flood into a program that never reads does not). */
const INPUT_QUEUE_LIMIT = 4 * 1024 * 1024;

/**
 * Bytes node-pty holds for the pty that the kernel has not taken yet. node-pty
 * (1.1) exposes no count, so its write queue is read here; if a later version
 * renames it this reads 0 and apps/multiplexer-lite/test/pane-input.test.ts fails.
 */
function queuedInput(process: pty.IPty): number {
  const queue = (process as unknown as { _writeStream?: { _writeQueue?: { buffer: Buffer; offset: number }[] } })._writeStream?._writeQueue;
  return (queue ?? []).reduce((sum, task) => sum + task.buffer.length - task.offset, 0);
}

/** A viewer whose unread output passes this is dropped to a redraw (tmux: a slow client is redrawn, never waited for). */
const VIEWER_BACKLOG_LIMIT = 1024 * 1024;
/**
 * Output goes to viewers and the model in batches of at most this much plus
 * one pty read (≤ 64 KiB): fewer, bigger messages. Even as JSON escapes
 * (6 bytes a character) such a batch fits one 1 MiB frame.
 */
const BATCH_LIMIT = 64 * 1024;
/**
 * A pty read at least this long (Linux hands over at most 4095 bytes a read)
 * says the program writes faster than we read: more is probably waiting, so
 * the batch waits one more turn of the event loop (a turn that does not
 * block), never a timer. Anything shorter, a keystroke echo, goes out on the
 * next turn.
 */
const LONG_READ = 2048;

/**
 * A viewer, and what it is being sent. live: output as it comes; behind:
 * nothing until it has read what it was sent, then a redraw; waiting: a
 * screen was asked of the model for it, and output since is kept to follow
 * that screen (everything after the request, nothing before).
 */
interface Watcher {
  readonly viewer: Viewer;
  state: "live" | "behind" | "waiting";
  pending: string[];
  /** The program exited while this viewer was waiting: tell it once it is live. */
  missedExit: boolean;
}

/**
 * One pane: a program on a pty in its own session and process group, a
 * screen model (@xterm/headless, in the screen worker) that is the truth for
 * capture and redraw, and the viewers attached to it. This thread only reads
 * the pty and passes output on; the pty is paused only while the model lags.
 */
export class Pane {
  readonly process: PaneProcess;
  /** The program's stdio, when the pane is a pipe pane. */
  readonly pipe: PipeProcess | null;
  readonly #model: ScreenModel;
  /** What of the output may reach a viewer's real terminal; stateful, so it sees all output, watched or not. */
  readonly #filter: OutputFilter;
  readonly #viewers = new Map<string, Watcher>();
  readonly #exitWaiters: (() => void)[] = [];
  /** Called once at the next output (after the model has been given it). */
  readonly #outputWaiters = new Set<() => void>();
  #lastOutputAt = Date.now();
  /** How much the program has printed (UTF-16 units of its decoded output): the position captures and waits share. */
  #printed = 0;
  readonly createdAt = new Date().toISOString();
  name: string;
  exitCode: number | null = null;
  signal: string | null = null;
  #cols: number;
  #rows: number;
  #batch: string[] = [];
  #batchLength = 0;
  #flushScheduled = false;
  /** Set by every pty read, cleared by each look at the batch: did the last turn bring output? */
  #readSinceLook = false;
  #lastReadLong = false;

  constructor(
    readonly spec: PaneSpec,
    onExit: (pane: Pane) => void,
  ) {
    this.name = spec.name;
    this.#cols = spec.cols;
    this.#rows = spec.rows;
    this.#filter = new OutputFilter(spec.allowClipboard);
    this.#model = new ScreenModel(
      { cols: spec.cols, rows: spec.rows, scrollback: spec.scrollback },
      (lagging) => (lagging ? this.process.pause() : this.process.resume()),
      // The model answers the program's terminal queries, as tmux does; they never reach a viewer's terminal.
      // A pipe pane's stderr is no terminal: an answer there would land in the middle of its stdin protocol.
      (answer) => {
        if (!this.pipe) this.write(answer);
      },
    );
    // What runs: the program, or the sandbox launcher that confines it and execs it.
    const { file, args, env } = spec.launch ?? { file: spec.argv[0] as string, args: spec.argv.slice(1), env: spec.env };
    // It starts once its record is written, and on a pty with tmux's terminal settings.
    const start = afterRecord(spec.record, file, args);
    this.pipe = spec.mode === "pipe" ? new PipeProcess(start.file, start.args, { cwd: spec.cwd, env }) : null;
    this.process =
      this.pipe ??
      pty.spawn(start.file, start.args, {
        name: "xterm-256color",
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd,
        env,
      });
    // node-pty leaves the new pty master inheritable: no later pane or other process
    // of ours may hold it (docs/security-model.md, "Descriptors").
    if (!this.pipe) closeOnExecAboveStderr();
    this.process.onData((data) => this.#onData(data));
    if (!this.pipe) keepTailAtExit(this.process as pty.IPty, (data) => this.#onData(data));
    this.process.onExit(({ exitCode, signal }) => {
      // node-pty reports a signal number; 0 means none.
      this.exitCode = signal ? null : exitCode;
      this.signal = signal ? (signalName(signal) ?? String(signal)) : null;
      // Output read before the exit reaches viewers before the exit does.
      this.#flush();
      for (const watcher of this.#viewers.values()) {
        if (watcher.state === "waiting") watcher.missedExit = true;
        else watcher.viewer.exited(this.info());
      }
      for (const wake of this.#exitWaiters.splice(0)) wake();
      onExit(this);
    });
  }

  get id(): string {
    return this.spec.id;
  }
  get pid(): number {
    return this.process.pid;
  }
  get cols(): number {
    return this.#cols;
  }
  get rows(): number {
    return this.#rows;
  }
  get running(): boolean {
    return this.exitCode === null && this.signal === null;
  }

  info(): PaneInfo {
    return {
      id: this.spec.id,
      index: this.spec.index,
      name: this.name,
      argv: this.spec.argv,
      cwd: this.spec.cwd,
      pid: this.process.pid,
      cols: this.#cols,
      rows: this.#rows,
      status: this.running ? "running" : "exited",
      exitCode: this.exitCode,
      signal: this.signal,
      depth: this.spec.depth,
      envPolicy: this.spec.envPolicy,
      mode: this.spec.mode,
      clients: this.#viewers.size,
      createdAt: this.createdAt,
    };
  }

  #onData(data: string): void {
    this.#lastOutputAt = Date.now();
    this.#printed += data.length;
    this.#batch.push(data);
    this.#batchLength += data.length;
    this.#readSinceLook = true;
    this.#lastReadLong = data.length >= LONG_READ;
    if (this.#batchLength >= BATCH_LIMIT) this.#flush();
    else if (!this.#flushScheduled) this.#lookNextTurn();
  }

  #lookNextTurn(): void {
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      if (this.#lastReadLong && this.#readSinceLook) {
        this.#readSinceLook = false;
        this.#lookNextTurn();
      } else this.#flush();
    });
  }

  /** Send the batch to every viewer and to the model. */
  #flush(): void {
    this.#readSinceLook = false;
    if (this.#batchLength === 0) return;
    const data = this.#batch.length === 1 ? (this.#batch[0] as string) : this.#batch.join("");
    this.#batch = [];
    this.#batchLength = 0;
    this.#model.write(data);
    for (const wake of this.#outputWaiters) wake();
    this.#outputWaiters.clear();
    const shown = this.#filter.feed(data);
    if (shown === "") return;
    for (const watcher of this.#viewers.values()) {
      if (watcher.state === "waiting") watcher.pending.push(shown);
      else if (watcher.state === "live") {
        if (watcher.viewer.backlog() > VIEWER_BACKLOG_LIMIT) this.#fallBehind(watcher);
        else watcher.viewer.output(shown);
      }
    }
  }

  /** Drop what a slow viewer would have got; redraw it from the model once it has caught up. */
  #fallBehind(watcher: Watcher): void {
    watcher.state = "behind";
    watcher.viewer.onDrain(() => {
      if (this.#viewers.get(watcher.viewer.id) === watcher) this.#redraw(watcher);
    });
  }

  /** Send a viewer the screen as of now, then live output again (unless it detached meanwhile). */
  #redraw(watcher: Watcher): void {
    void this.#screenFor(watcher).then((screen) => {
      if (this.#viewers.get(watcher.viewer.id) !== watcher) return;
      watcher.viewer.redraw(screen);
      this.#goLive(watcher);
    });
  }

  /**
   * The screen as of now, for a viewer that gets what comes after it. The
   * batch goes to the model ahead of the request, so the screen includes it;
   * this viewer, behind or waiting, is not sent it.
   */
  #screenFor(watcher: Watcher): Promise<string> {
    this.#flush();
    watcher.state = "waiting";
    watcher.pending = [];
    return this.#model.screen();
  }

  /** Send a waiting viewer what came after its screen, then live output. */
  #goLive(watcher: Watcher): void {
    for (const data of watcher.pending) watcher.viewer.output(data);
    watcher.pending = [];
    watcher.state = "live";
    if (watcher.missedExit) watcher.viewer.exited(this.info());
    watcher.missedExit = false;
  }

  /** Attach a viewer: it first gets the current screen (the answer to attach), then live output. */
  async attach(viewer: Viewer): Promise<string> {
    const watcher: Watcher = { viewer, state: "waiting", pending: [], missedExit: false };
    this.#viewers.set(viewer.id, watcher);
    const screen = await this.#screenFor(watcher);
    // The caller answers with the screen within this turn; the output that followed it goes out on the next.
    setImmediate(() => {
      if (this.#viewers.get(viewer.id) === watcher) this.#goLive(watcher);
    });
    return screen;
  }

  detach(viewerId: string): boolean {
    return this.#viewers.delete(viewerId);
  }

  /** The size of the viewer still attached that gave one most recently (tmux's window-size latest), if any did. */
  latestViewerSize(): { cols: number; rows: number } | undefined {
    return [...this.#viewers.values()].findLast((watcher) => watcher.viewer.size)?.viewer.size;
  }

  /** Draw every viewer's screen again from the model: after a resize none of them asked for. */
  redrawViewers(): void {
    for (const watcher of this.#viewers.values()) if (watcher.state === "live") this.#redraw(watcher);
  }

  /** Type into the pane; refused with busy once INPUT_QUEUE_LIMIT bytes wait for a program that does not read. */
  write(data: string): void {
    if (!this.running) return;
    if (this.pipe) this.pipe.write();
    const queued = queuedInput(this.process as pty.IPty);
    if (queued + Buffer.byteLength(data) > INPUT_QUEUE_LIMIT) {
      throw new ProtocolError(
        ErrorCode.Busy,
        `busy: pane ${this.id} is not reading its input; ${queued} bytes are still waiting (at most ${INPUT_QUEUE_LIMIT})`,
      );
    }
    this.process.write(data);
  }

  resize(cols: number, rows: number): void {
    // What was read before the resize is parsed at the old size.
    this.#flush();
    this.#cols = cols;
    this.#rows = rows;
    this.#model.resize(cols, rows);
    if (this.running) this.process.resize(cols, rows);
  }

  /** The screen model after everything received so far has been parsed. */
  settled(): Promise<void> {
    this.#flush();
    return this.#model.settled();
  }

  /** The key modes the program has set, once everything received so far has been parsed. */
  keyModes(): Promise<KeyModes> {
    this.#flush();
    return this.#model.modes();
  }

  /** tmux capture-pane over the screen model, once it has parsed everything received so far. */
  capture(options: CaptureOptions): Promise<string> {
    this.#flush();
    return this.#model.capture(options);
  }

  /** How much the program has printed so far; a capture taken now shows all of it. */
  printed(): number {
    return this.#printed;
  }

  /** Milliseconds since the program last printed. */
  quietMs(): number {
    return Date.now() - this.#lastOutputAt;
  }

  /** Call `wake` once at the pane's next output (the model has it by then); returns the way to stop waiting. */
  onNextOutput(wake: () => void): () => void {
    this.#outputWaiters.add(wake);
    return () => {
      this.#outputWaiters.delete(wake);
    };
  }

  /** info() with what the model and the kernel say now: title, cursor, foreground program, waiting for input. */
  async describe(): Promise<PaneInfo> {
    const info = this.info();
    if (!this.running) return info;
    this.#flush();
    const quietMs = this.quietMs();
    // Before the await: a listing describes every pane in one synchronous run, and so shares one scan of /proc.
    // A pane that printed within QUIET_MS is not waiting for input whatever its threads do, so they are not read
    // (for an agent, some 15 files of /proc a pane, on the thread that serves every pane).
    const front = foreground(this.pid, quietMs >= QUIET_MS);
    const { title, cursor } = await this.#model.state();
    return {
      ...info,
      title,
      cursor,
      foreground: front ? { pid: front.pid, argv: front.argv } : null,
      waitingForInput: front?.waiting === true,
      quietMs,
    };
  }

  /** Resolves when the pane's program has exited (at once if it has). */
  exited(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.#exitWaiters.push(resolve));
  }

  dispose(): void {
    this.#viewers.clear();
    this.#model.close();
  }
}

function signalName(signal: number): string | undefined {
  return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
}
