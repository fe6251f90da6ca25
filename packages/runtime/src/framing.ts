/** Default largest line, in bytes, either side accepts (conformance/spec/design.md, "Wire protocol"). */
export const DEFAULT_FRAME_LIMIT = 1024 * 1024;

export class FrameTooLarge extends Error {
  override readonly name = "FrameTooLarge";
}

/**
 * Splits a byte stream into `\n`-terminated lines without ever holding more
 * than one frame limit of an unfinished line: an oversized frame is refused as
 * soon as it passes the limit, not after it has been buffered whole.
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #pending = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.#pending + piece.length > this.limit) throw new FrameTooLarge(`frame over the ${this.limit}-byte limit`);
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#pending = 0;
      start = nl + 1;
      onLine(line);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    this.#pending += rest.length;
    if (this.#pending > this.limit) throw new FrameTooLarge(`frame over the ${this.limit}-byte limit`);
    this.#parts.push(Buffer.from(rest));
  }
}
