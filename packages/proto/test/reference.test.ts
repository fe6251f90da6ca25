import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { protocolReference } from "../src/index.js";

describe("docs/protocol.md", () => {
  it("is exactly what the schemas generate (run `pnpm gen:docs` after changing wire.ts)", () => {
    const committed = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");
    expect(committed).toBe(protocolReference());
  });
});
