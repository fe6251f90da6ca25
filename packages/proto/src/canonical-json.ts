import { createHash } from "node:crypto";

/**
 * RFC 8785 (JCS) canonical JSON for the values venom/1 carries: object members
 * sorted by their names as UTF-16 code units at every level, no whitespace,
 * JSON.stringify's strings and numbers (which are JCS's). Built by hand: a
 * JavaScript object would put integer-like names ("1") first whatever order
 * they were added in. Members whose value is undefined are left out.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}
