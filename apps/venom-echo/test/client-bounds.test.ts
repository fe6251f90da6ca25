import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { RequestTooLarge } from "@venom/runtime";
import { cleanupAll, connect, ECHO_BIN, startEcho, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("the client can't hang", () => {
  it("a request too big for one frame is refused locally with an error naming the limit; the connection stays usable", async () => {
    const daemon = await startEcho();
    const client = await connect(daemon);
    const error = await client.callTool("write", { path: "big.txt", content: "x".repeat(2 * 1024 * 1024) }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTooLarge);
    expect(error.message).toMatch(/over the 1048576-byte frame limit/);
    expect((await client.callTool("echo", { text: "still here" })).content).toBe("still here");
    client.close();
    await daemon.stop();
  });

  it("a daemon that accepts and never answers makes the CLI exit 1 with a message instead of hanging", async () => {
    const home = tempDir("home");
    mkdirSync(join(home, "state"), { mode: 0o700 });
    const silent = createServer(() => undefined).listen(join(home, "state", "echo.sock"));
    try {
      const child = spawn(process.execPath, [ECHO_BIN, "status"], {
        env: { ...process.env, VENOM_HOME: home },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/no answer to hello within \d+ s/);
    } finally {
      silent.close();
    }
  });
});
