import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A value that must reach only its owner. Every way of turning it into text
 * (String, JSON, util.inspect, template literals, pino) yields "[redacted]";
 * only `reveal()` gives the value, and a grep for it finds every use.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
  [inspect.custom](): string {
    return REDACTED;
  }
}
