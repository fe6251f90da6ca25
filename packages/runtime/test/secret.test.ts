import { Writable } from "node:stream";
import { inspect } from "node:util";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Secret } from "../src/secret.js";

describe("Secret", () => {
  it("every serialisation is [redacted]; only reveal() gives the value", () => {
    const secret = new Secret("canary-value-123");
    const holder = { token: secret };
    expect(String(secret)).toBe("[redacted]");
    expect(`${secret}`).toBe("[redacted]");
    expect(JSON.stringify(holder)).toBe('{"token":"[redacted]"}');
    expect(inspect(holder)).not.toContain("canary");
    expect(secret.reveal()).toBe("canary-value-123");
  });

  it("pino logs it as [redacted]", () => {
    let written = "";
    const sink = new Writable({
      write(chunk, _e, cb) {
        written += chunk;
        cb();
      },
    });
    pino(sink).info({ credential: new Secret("canary-value-123") }, "x");
    expect(written).toContain("[redacted]");
    expect(written).not.toContain("canary");
  });
});
