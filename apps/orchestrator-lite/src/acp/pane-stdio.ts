import type { VenomClient } from "@venom/runtime";

/** stdin bytes per `pane/stdin` request: their base64 fits a frame with room to spare. */
const STDIN_CHUNK = 192 * 1024;

/** stdout bytes held for the ACP SDK before the job's connection stops being read. */
const STDOUT_WINDOW = 1024 * 1024;

/**
 * A venom-mux pipe pane's stdio as the byte streams the ACP SDK reads and
 * writes: stdout arrives as `pane/stdout` notifications on the job's own
 * connection (one pane per connection, so every one is this pane's), stdin
 * goes out as `pane/stdin` requests, each awaited, so a program that does not
 * read slows the writer instead of filling memory. Likewise an agent that
 * writes faster than the SDK reads: past STDOUT_WINDOW the connection is not
 * read (`flow`, once connected) until the SDK has taken what is held.
 */
export class PaneStdio {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  #flow: { pause(): void; resume(): void } | undefined;

  constructor() {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        // Called when the SDK has taken the queue below the window.
        pull: () => this.#flow?.resume(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: STDOUT_WINDOW }),
    );
  }

  /** The job's connection, paused and resumed as the SDK keeps up. */
  flowThrough(connection: { pause(): void; resume(): void }): void {
    this.#flow = connection;
  }

  /** For the job connection's onEvent: stdout bytes, then its end. */
  onEvent(method: string, params: unknown): void {
    if (method !== "pane/stdout" || this.#ended) return;
    const { data, eof } = params as { data: string; eof?: boolean };
    if (data) {
      this.#controller.enqueue(new Uint8Array(Buffer.from(data, "base64")));
      if ((this.#controller.desiredSize ?? 1) <= 0) this.#flow?.pause();
    }
    if (eof) this.end();
  }

  /** No more stdout: the pane's stdout closed, or its connection did. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#controller.close();
  }

  /** The pane's stdin, through `client`. */
  writable(client: VenomClient, target: string): WritableStream<Uint8Array> {
    return new WritableStream<Uint8Array>({
      write: async (chunk) => {
        for (let at = 0; at < chunk.length; at += STDIN_CHUNK) {
          const data = Buffer.from(chunk.subarray(at, at + STDIN_CHUNK)).toString("base64");
          await client.request("pane/stdin", { target, data });
        }
      },
      close: async () => {
        await client.request("pane/stdin", { target, end: true });
      },
    });
  }
}
