import { constants } from "node:os";
import type { PaneInfo } from "@venom/proto";
import serializeAddon from "@xterm/addon-serialize";
import xterm from "@xterm/headless";
import * as pty from "node-pty";
import { type CaptureOptions, capture } from "./capture.js";

/** Someone watching a pane: gets its output live, or a redraw after falling behind. */
export interface Viewer {
  readonly id: string;
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
}

/** A viewer whose unread output passes this is dropped to a redraw (tmux: a slow client is redrawn, never waited for). */
const VIEWER_BACKLOG_LIMIT = 1024 * 1024;
/** The screen model may lag the pty by this much before the pane's program is paused (backpressure, bounded memory). */
const MODEL_HIGH_WATER = 8 * 1024 * 1024;
const MODEL_LOW_WATER = 1024 * 1024;

/**
 * One pane: a program on a pty in its own session and process group, a
 * screen model (@xterm/headless) that is the truth for capture and redraw,
 * and the viewers attached to it.
 */
export class Pane {
  readonly process: pty.IPty;
  readonly terminal: xterm.Terminal;
  readonly #serialize = new serializeAddon.SerializeAddon();
  readonly #viewers = new Map<string, Viewer & { behind: boolean }>();
  readonly #exitWaiters: (() => void)[] = [];
  readonly createdAt = new Date().toISOString();
  name: string;
  exitCode: number | null = null;
  signal: string | null = null;
  #modelLag = 0;
  #paused = false;

  constructor(
    readonly spec: PaneSpec,
    onExit: (pane: Pane) => void,
  ) {
    this.name = spec.name;
    this.terminal = new xterm.Terminal({ cols: spec.cols, rows: spec.rows, scrollback: spec.scrollback, allowProposedApi: true });
    this.terminal.loadAddon(this.#serialize);
    const [file, ...args] = spec.argv;
    this.process = pty.spawn(file as string, args, {
      name: "xterm-256color",
      cols: spec.cols,
      rows: spec.rows,
      cwd: spec.cwd,
      env: spec.env,
    });
    this.process.onData((data) => this.#onData(data));
    this.process.onExit(({ exitCode, signal }) => {
      // node-pty reports a signal number; 0 means none.
      this.exitCode = signal ? null : exitCode;
      this.signal = signal ? (signalName(signal) ?? String(signal)) : null;
      for (const viewer of this.#viewers.values()) viewer.exited(this.info());
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
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      status: this.running ? "running" : "exited",
      exitCode: this.exitCode,
      signal: this.signal,
      depth: this.spec.depth,
      envPolicy: this.spec.envPolicy,
      clients: this.#viewers.size,
      createdAt: this.createdAt,
    };
  }

  #onData(data: string): void {
    // The screen model parses off the hot path (xterm queues writes); output reaches viewers at once.
    this.#modelLag += data.length;
    this.terminal.write(data, () => {
      this.#modelLag -= data.length;
      if (this.#paused && this.#modelLag < MODEL_LOW_WATER) {
        this.#paused = false;
        this.process.resume();
      }
    });
    if (!this.#paused && this.#modelLag > MODEL_HIGH_WATER) {
      this.#paused = true;
      this.process.pause();
    }
    for (const viewer of this.#viewers.values()) {
      if (viewer.behind) continue;
      if (viewer.backlog() > VIEWER_BACKLOG_LIMIT) this.#fallBehind(viewer);
      else viewer.output(data);
    }
  }

  /** Drop what a slow viewer would have got; redraw it from the model once it has caught up. */
  #fallBehind(viewer: Viewer & { behind: boolean }): void {
    viewer.behind = true;
    viewer.onDrain(() => {
      this.#withScreen((screen) => {
        if (!this.#viewers.has(viewer.id)) return;
        viewer.behind = false;
        viewer.redraw(screen);
      });
    });
  }

  /** Run `fn` with the current screen once the model has parsed everything received so far. */
  #withScreen(fn: (screen: string) => void): void {
    this.terminal.write("", () => fn(this.screen()));
  }

  /** Escape sequences that redraw the screen as it is: contents, alternate screen, cursor. */
  screen(): string {
    return `\x1b[H\x1b[2J${this.#serialize.serialize({ scrollback: 0 })}`;
  }

  /** Attach a viewer: it first gets the current screen, then live output. */
  attach(viewer: Viewer): Promise<string> {
    return new Promise((resolve) => {
      this.#withScreen((screen) => {
        this.#viewers.set(viewer.id, Object.assign(viewer, { behind: false }));
        resolve(screen);
      });
    });
  }

  detach(viewerId: string): boolean {
    return this.#viewers.delete(viewerId);
  }

  write(data: string): void {
    if (this.running) this.process.write(data);
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
    if (this.running) this.process.resize(cols, rows);
  }

  /** The screen model after everything received so far has been parsed. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.terminal.write("", resolve));
  }

  async capture(options: CaptureOptions): Promise<string> {
    await this.settled();
    return capture(this.terminal, options);
  }

  /** Resolves when the pane's program has exited (at once if it has). */
  exited(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.#exitWaiters.push(resolve));
  }

  dispose(): void {
    this.#viewers.clear();
    this.terminal.dispose();
  }
}

function signalName(signal: number): string | undefined {
  return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
}
