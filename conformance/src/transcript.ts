import type { WireLog } from "./wire-client.js";

const MAX_LINES = 60;
const MAX_LINE_CHARS = 300;

/**
 * The secrets of one run: the canary planted in the daemon's environment and
 * values the checks plant in files. Transcripts are redacted through it before
 * anything is kept, and every byte the daemon sends is scanned for the canary.
 */
export class Secrets {
  readonly #placeholders = new Map<string, string>();
  /** Where the canary was seen, by source; never the text around it. */
  readonly exposures: string[] = [];

  constructor(readonly canary: string | undefined) {
    if (canary) this.#placeholders.set(canary, "[canary]");
  }

  add(value: string, placeholder: string): void {
    this.#placeholders.set(value, placeholder);
  }

  redact(text: string): string {
    let out = text;
    for (const [value, placeholder] of this.#placeholders) out = out.replaceAll(value, placeholder);
    return out;
  }

  scan(source: string, text: string): void {
    if (this.canary && text.includes(this.canary)) this.exposures.push(source);
  }
}

/** A check's short record of what was said: redacted first, then bounded. */
export class Transcript implements WireLog {
  readonly #lines: string[] = [];
  #omitted = 0;

  constructor(private readonly secrets: Secrets) {}

  sent(label: string, text: string): void {
    this.#add(`${label} > ${text}`);
  }

  received(label: string, text: string): void {
    this.secrets.scan(label, text);
    this.#add(`${label} < ${text}`);
  }

  note(text: string): void {
    this.#add(`# ${text}`);
  }

  get lines(): string[] {
    return this.#omitted > 0 ? [...this.#lines, `… ${this.#omitted} more lines`] : [...this.#lines];
  }

  #add(line: string): void {
    if (this.#lines.length >= MAX_LINES) {
      this.#omitted++;
      return;
    }
    const text = this.secrets.redact(line.trimEnd());
    this.#lines.push(text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… (${text.length} chars)` : text);
  }
}
