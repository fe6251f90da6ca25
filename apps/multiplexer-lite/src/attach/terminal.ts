import { writeSync } from "node:fs";
import { constants } from "node:os";
import type { ReadStream, WriteStream } from "node:tty";

/**
 * Modes a pane's program may have switched on in the outer terminal, back to
 * their defaults: cursor keys and keypad, bracketed paste, insert, origin,
 * reverse wrap, focus events, autowrap, every mouse mode and encoding, the
 * scroll region, attributes, cursor visibility and shape, the character set.
 */
export const RESET_MODES =
  "\x1b[?1l\x1b>\x1b[?66l\x1b[?2004l\x1b[4l\x1b[?6l\x1b[?45l\x1b[?1004l\x1b[?7h" +
  "\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l" +
  "\x1b[r\x1b[0m\x1b[?25h\x1b[0 q\x1b(B\x0f";
/** Clear the screen, cursor home. */
export const CLEAR = "\x1b[H\x1b[2J";
const ENTER_ALTERNATE = "\x1b[?1049h";
const LEAVE_ALTERNATE = "\x1b[?1049l";

const EXIT_SIGNALS = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"] as const;

/**
 * The user's terminal while a client is attached: raw mode on the alternate
 * screen. Whatever happens (detach, an exception, a signal, the daemon going
 * away, process exit) `restore` puts it back: raw mode off, the alternate screen
 * left (the user's shell screen is back), modes and attributes reset, cursor shown.
 */
export class OuterTerminal {
  #active = false;
  readonly #onExit = () => this.restore();
  readonly #onCrash = (error: unknown) => {
    this.restore();
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.#writeSync(process.stderr.fd, `venom-mux attach: crashed; the terminal is restored: ${message}\n`);
    process.exit(1);
  };
  readonly #onSignal = (signal: NodeJS.Signals) => {
    this.restore();
    this.#writeSync(process.stderr.fd, `[terminated by ${signal}]\n`);
    process.exit(128 + (constants.signals[signal] ?? 0));
  };

  constructor(
    readonly input: ReadStream = process.stdin as ReadStream,
    readonly output: WriteStream = process.stdout as WriteStream,
  ) {}

  /** Both sides are a terminal: attach needs one. */
  static available(input = process.stdin, output = process.stdout): boolean {
    return input.isTTY === true && output.isTTY === true;
  }

  get cols(): number {
    return clamp(this.output.columns || 80);
  }
  get rows(): number {
    return clamp(this.output.rows || 24);
  }

  /** Raw mode, alternate screen, cleared; the guards that restore it are installed first. Reading input is the caller's. */
  enter(): void {
    if (this.#active) return;
    this.#active = true;
    process.on("exit", this.#onExit);
    process.on("uncaughtException", this.#onCrash);
    process.on("unhandledRejection", this.#onCrash);
    for (const signal of EXIT_SIGNALS) process.on(signal, this.#onSignal);
    // Typed-ahead keys wait in the terminal until the client reads them (see AttachSession.run).
    this.input.setRawMode(true);
    this.write(`${ENTER_ALTERNATE}${RESET_MODES}${CLEAR}`);
  }

  write(data: string): void {
    if (this.#active && data !== "") this.output.write(data);
  }

  /** Put the terminal back as it was; synchronous, idempotent, safe from any handler. */
  restore(): void {
    if (!this.#active) return;
    this.#active = false;
    this.#writeSync((this.output as WriteStream & { fd: number }).fd, `${RESET_MODES}${CLEAR}${LEAVE_ALTERNATE}\x1b[?25h`);
    try {
      this.input.setRawMode(false);
    } catch {
      // The terminal is gone (hangup): nothing left to restore.
    }
    this.input.pause();
    process.off("exit", this.#onExit);
    process.off("uncaughtException", this.#onCrash);
    process.off("unhandledRejection", this.#onCrash);
    for (const signal of EXIT_SIGNALS) process.off(signal, this.#onSignal);
  }

  #writeSync(fd: number, data: string): void {
    try {
      writeSync(fd, data);
    } catch {
      // A closed terminal cannot be written to; there is nothing to restore on it.
    }
  }
}

/** Pane sizes the protocol accepts. */
function clamp(n: number): number {
  return Math.max(2, Math.min(1000, Math.floor(n)));
}
