import { PassThrough } from "node:stream";
import { ErrorCode, MessageSchema } from "@venom/proto";
import { describe, expect, it } from "vitest";
import { RpcPeer } from "../src/rpc.js";

/** One request to a peer whose handler throws `thrown`: the reply, and what the peer gave its log. */
async function answerTo(thrown: () => never): Promise<{ reply: any; logged: { what: string; frames?: readonly string[] }[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const logged: { what: string; frames?: readonly string[] }[] = [];
  new RpcPeer(input, output, { request: thrown, diagnostic: (what, frames) => logged.push({ what, frames }) }, { envelope: MessageSchema });
  input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: {} })}\n`);
  const line: string = await new Promise((resolve) => output.once("data", (d: Buffer) => resolve(d.toString())));
  return { reply: JSON.parse(line), logged };
}

describe("an unexpected failure in a request handler", () => {
  it("tells the peer only its class and code, and logs where it was thrown without its message", async () => {
    function openTheWorkspace(): never {
      throw Object.assign(new Error("ENOENT: no such file or directory, open '/home/me/token=hunter2'"), { code: "ENOENT" });
    }
    const { reply, logged } = await answerTo(openTheWorkspace);
    expect(reply.error).toMatchObject({ code: ErrorCode.InternalError, message: "hello failed: Error (ENOENT)" });
    expect(logged).toHaveLength(1);
    expect(logged[0]?.what).toBe("hello failed: Error (ENOENT)");
    expect(logged[0]?.frames?.[0]).toMatch(/^at .*openTheWorkspace .*\(.*rpc\.test\.ts:\d+:\d+\)$/);
    expect(JSON.stringify(logged)).not.toContain("hunter2");
  });

  it("a message that looks like stack frames adds none of its own", async () => {
    const { logged } = await answerTo(() => {
      throw new Error("token=hunter2\n    at forged (/etc/shadow:1:1)");
    });
    expect(logged[0]?.frames?.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toMatch(/hunter2|forged|shadow/);
  });

  it("a stack that no longer starts with the error's message gives no frames, not a guess", async () => {
    const { logged } = await answerTo(() => {
      const error = new Error("first");
      void error.stack; // formatted now, with "first"
      error.message = "token=hunter2";
      throw error;
    });
    expect(logged[0]?.frames).toEqual([]);
    expect(JSON.stringify(logged)).not.toContain("hunter2");
  });
});
