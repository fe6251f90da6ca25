import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "dist" || name === "test") return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

describe("one dispatcher is the only route to a tool (RFC 0008, Canonical interception)", () => {
  it("a tool's run() is called in exactly one place in all shipped source: the dispatcher", () => {
    const files = ["packages", "apps", "conformance"].flatMap((top) => sources(join(root, top)));
    expect(files.length).toBeGreaterThan(20);
    const calls = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ where: `${relative(root, file)}:${i + 1}`, line }))
        // A call of run() on anything named like a tool or definition (echoTool.run, definition.run, tools[i].run…).
        .filter(({ line }) => /\w*(tool|Tool|definition|Definition)\w*(\[[^\]]*\])?\??\.run\(/.test(line)),
    );
    expect(calls.map((c) => c.where.replace(/:\d+$/, ""))).toEqual(["packages/proto/src/dispatcher.ts"]);
  });
});
