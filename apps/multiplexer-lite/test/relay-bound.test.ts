import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRequest, PROTOCOL } from "@venom/proto";
import { cleanupAll, cli, connect, startEcho, startMux, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/**
 * An agent's flood: `connections` connections to venom-echo, each pipelining
 * `calls` writes (approval-needing under on-risk), every answer one JSON line in `out`.
 */
const FLOOD = `
const net = require("node:net");
const fs = require("node:fs");
const [socket, out, connections, calls] = process.argv.slice(2);
for (let c = 0; c < Number(connections); c++) {
  const s = net.createConnection(socket);
  let buf = "";
  s.on("data", (d) => {
    buf += d;
    for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
      const m = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (typeof m.id === "number" && m.id > 1) fs.appendFileSync(out, JSON.stringify(m.result ?? m.error) + "\\n");
    }
  });
  s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: "${PROTOCOL}", client: { name: "flood", version: "0" } } }) + "\\n");
  for (let i = 0; i < Number(calls); i++) {
    const path = "flood-" + c + "-" + i + ".txt";
    s.write(JSON.stringify({ jsonrpc: "2.0", id: i + 2, method: "tools/call", params: { name: "write", arguments: { path, content: "x" } } }) + "\\n");
  }
}
setInterval(() => {}, 1000);
`;

function answers(path: string): { status: string; error?: { message: string } }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe("relayed approvals are bounded", () => {
  it("a delegate's 150 pipelined calls ask the person at most 16 at once, the rest are refused naming the bound, and the owner's ls and status still work", async () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const [echo, mux] = await Promise.all([startEcho({ home, workspace }), startMux({ home, workspace })]);
    const asked: ApprovalRequest[] = [];
    const held: ((decision: "deny") => void)[] = [];
    const person = await connect(mux, {
      gate: (request) => {
        asked.push(request);
        return new Promise((resolve) => held.push(resolve));
      },
    });
    try {
      const script = join(tempDir("flood"), "flood.cjs");
      writeFileSync(script, FLOOD);
      const out = join(tempDir("out"), "answers.jsonl");
      // The person's own pane runs the agent: its calls to venom-echo relay to venom-mux, which asks the person.
      await person.request("pane/new", { name: "agent", argv: [process.execPath, script, echo.socket, out, "10", "15"] });

      // Every one of the 150 calls is either answered or put to the person: 16 wait, the other 134 are refused at once.
      await expect.poll(() => answers(out).length + asked.length, { timeout: 60_000 }).toBe(150);
      expect(asked.length).toBe(16);
      const refused = answers(out);
      expect(refused.every((a) => a.status === "denied")).toBe(true);
      expect(refused[0]?.error?.message).toMatch(/at most 16 approval questions of one delegation wait at once/);
      expect(asked.every((a) => a.tool === "write" && a.label === "[echo via agent depth 1]")).toBe(true);

      // Meanwhile the owner's management finds a slot.
      const ls = cli(mux, ["ls"]);
      expect(ls.code, ls.stderr).toBe(0);
      expect(ls.stdout).toMatch(/^%0 agent: /);
      const status = cli(mux, ["status", "--json"]);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).principal.kind).toBe("owner");
      // The 16 waiting questions share venom-echo's one connection: with the person's, this status' (and ls', if
      // the daemon has not yet seen it close), at most four.
      expect(JSON.parse(status.stdout).connections).toBeLessThanOrEqual(4);

      // The person answers: the 16 that waited are denied as asked; nothing was written.
      for (const resolve of held.splice(0)) resolve("deny");
      await expect.poll(() => answers(out).length, { timeout: 30_000 }).toBe(150);
      expect(answers(out).filter((a) => /the approval for write was refused/.test(a.error?.message ?? ""))).toHaveLength(16);
      expect(asked.length).toBe(16);
      expect(existsSync(join(workspace, "flood-0-0.txt"))).toBe(false);
      expect(cli(mux, ["kill", "-t", "agent"]).code).toBe(0);
    } finally {
      for (const resolve of held.splice(0)) resolve("deny");
      person.close();
      await Promise.all([echo.stop(), mux.stop()]);
    }
  }, 180_000);
});
