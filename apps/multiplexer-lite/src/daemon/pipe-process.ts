import { type ChildProcessByStdio, spawn } from "node:child_process";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { ErrorCode, ProtocolError } from "@venom/proto";

/** Where a pipe pane's stdout goes: the connection that created it. */
export interface StdoutSink {
  /** Bytes sent to the sink and not yet taken by its peer. */
  backlog(): number;
  data(chunk: Buffer): void;
  eof(): void;
  /** Called once when the peer has taken all it was sent. */
  onDrain(callback: () => void): void;
  /** The peer stopped reading: it is cut off (its connection closed), and with it the pane. */
  cutOff(why: string): void;
}

/** Bytes waiting for the program to read its stdin, at most; then `busy`. */
const STDIN_QUEUE_LIMIT = 4 * 1024 * 1024;
/** stdout is paused while the peer has this much unread, so the daemon never holds more. */
const STDOUT_BACKLOG_LIMIT = 1024 * 1024;
/** A peer that has taken nothing of its backlog for this long does not read: it is cut off. */
const PEER_STALL_MS = 10_000;

/**
 * A pane's program on pipes instead of a pty (`pane/new` mode "pipe"): for a
 * program that speaks a protocol on stdio (an ACP agent), where a terminal
 * would mangle the bytes. It offers what a Pane uses of node-pty's IPty — its
 * stderr is the "terminal output" the screen model shows, so capture and
 * attach still show something useful — and stdin/stdout for the one
 * connection that created it. It starts in a session of its own (setsid), so
 * its pid is its process group, exactly as node-pty's panes.
 */
export class PipeProcess {
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly #decoder = new StringDecoder("utf8");
  #sink: StdoutSink | null = null;
  #stall: NodeJS.Timeout | null = null;

  constructor(file: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
    this.#child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    // A peer that closed early makes writes fail with EPIPE: the pane goes on, what was written is lost.
    this.#child.stdin.on("error", () => undefined);
    this.#child.stdout.pause();
  }

  get pid(): number {
    // spawn fails asynchronously (an error event) only for a missing program, which the pane table checked first.
    return this.#child.pid ?? -1;
  }

  onData(listener: (data: string) => void): void {
    this.#child.stderr.on("data", (chunk: Buffer) => {
      // What a pty's onlcr does: a line feed alone would leave the next line where the last one ended (a staircase).
      const text = this.#decoder.write(chunk).replaceAll("\n", "\r\n");
      if (text) listener(text);
    });
  }

  onExit(listener: (event: { exitCode: number; signal?: number }) => void): void {
    this.#child.once("exit", (code, signal) => listener({ exitCode: code ?? 0, signal: signal ? constants.signals[signal] : 0 }));
    this.#child.once("error", () => listener({ exitCode: 127, signal: 0 }));
  }

  /** Typed input is for ptys: a pipe pane's stdin belongs to the connection that created it. */
  write(): never {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      "invalid params: target: a pipe pane's input belongs to the connection that created it (pane/stdin); nothing can be typed into it",
      { path: ["target"] },
    );
  }

  resize(): void {
    // No terminal: only the screen model showing stderr changes size.
  }
  pause(): void {
    this.#child.stderr.pause();
  }
  resume(): void {
    this.#child.stderr.resume();
  }

  /** Send stdout to `sink` from now on; paused while the sink's peer lags, cut off if it stops reading. */
  bindStdout(sink: StdoutSink): void {
    this.#sink = sink;
    const { stdout } = this.#child;
    stdout.on("data", (chunk: Buffer) => {
      sink.data(chunk);
      if (sink.backlog() > STDOUT_BACKLOG_LIMIT) this.#wait(sink);
    });
    stdout.once("end", () => sink.eof());
    stdout.resume();
  }

  #wait(sink: StdoutSink): void {
    this.#child.stdout.pause();
    if (this.#stall) return;
    // Cut off only a peer that took nothing in the whole while: one that reads, however slowly (a busy daemon on a
    // loaded machine), has left less than it had, and gets another while.
    const watch = (unread: number): NodeJS.Timeout =>
      setTimeout(() => {
        if (sink.backlog() < unread) this.#stall = watch(sink.backlog());
        else sink.cutOff(`it read none of ${sink.backlog()} bytes of the pane's stdout for ${PEER_STALL_MS / 1000} s`);
      }, PEER_STALL_MS);
    this.#stall = watch(sink.backlog());
    sink.onDrain(() => {
      if (this.#stall) clearTimeout(this.#stall);
      this.#stall = null;
      if (this.#sink === sink) this.#child.stdout.resume();
    });
  }

  /** Bytes for the program's stdin; `busy` while more than STDIN_QUEUE_LIMIT wait for a program that does not read. */
  stdin(data: Buffer, end: boolean): number {
    const { stdin } = this.#child;
    if (stdin.writableLength + data.length > STDIN_QUEUE_LIMIT) {
      throw new ProtocolError(
        ErrorCode.Busy,
        `busy: the pane's program is not reading its stdin; ${stdin.writableLength} bytes are still waiting (at most ${STDIN_QUEUE_LIMIT})`,
      );
    }
    if (data.length > 0 && !stdin.destroyed) stdin.write(data);
    if (end) stdin.end();
    return data.length;
  }

  /** The connection went away: nobody takes stdout any more, and stdin gets its end. */
  unbind(): void {
    this.#sink = null;
    if (this.#stall) clearTimeout(this.#stall);
    this.#stall = null;
    this.#child.stdin.end();
    this.#child.stdout.resume();
    this.#child.stdout.removeAllListeners("data");
  }
}
