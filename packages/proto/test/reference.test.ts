import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, protocolReference } from "../src/index.js";

describe("docs/protocol.md", () => {
  it("is exactly what the schemas generate (run `pnpm gen:docs` after changing wire.ts or reference-tools.ts)", () => {
    const committed = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");
    expect(committed).toBe(protocolReference());
  });

  it("specifies canonical JSON as RFC 8785 does: members sorted by UTF-16 code units, no whitespace, minimal escapes", () => {
    // The sorting example of RFC 8785, section 3.2.3: each key's value is its rank in the canonical order.
    const keys = ["\u20ac", "\r", "\ufb33", "1", "\ud83d\ude00", "\u0080", "\u00f6"];
    const ranks = [4, 0, 6, 1, 5, 2, 3];
    expect(canonicalJson(Object.fromEntries(keys.map((key, i) => [key, ranks[i]])))).toBe(
      '{"\\r":0,"1":1,"\u0080":2,"\u00f6":3,"\u20ac":4,"\ud83d\ude00":5,"\ufb33":6}',
    );
    expect(canonicalJson({ b: [1, '\u0007"é', null, true, { d: 1e21, c: -0.5 }], a: {} })).toBe(
      '{"a":{},"b":[1,"\\u0007\\"é",null,true,{"c":-0.5,"d":1e+21}]}',
    );
  });
});
