import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, connect, startEcho, type TestDaemon } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const CALLS = 120;

/** What the daemon logged, one object per line. */
function logLines(daemon: TestDaemon): { msg: string; tool?: string; status?: string }[] {
  return readFileSync(join(daemon.home, "logs", "echo.log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

// The log is written once per turn of the event loop, not once per line (packages/runtime/src/log.ts):
// however the daemon is stopped, every answered call keeps its line.
describe("every answered call is in the log after the daemon stops", () => {
  for (const [how, stop] of [
    ["venom-echo stop", (daemon: TestDaemon) => cli(daemon, ["stop"])],
    ["SIGTERM", (daemon: TestDaemon) => daemon.proc.kill("SIGTERM")],
    ["SIGINT", (daemon: TestDaemon) => daemon.proc.kill("SIGINT")],
  ] as const) {
    it(`after ${how}`, async () => {
      const daemon = await startEcho();
      const client = await connect(daemon);
      // Ten at a time, so that one turn of the daemon's event loop answers (and logs) several calls.
      for (let i = 0; i < CALLS; i += 10) {
        await Promise.all(Array.from({ length: 10 }, (_, j) => client.callTool("echo", { text: `call ${i + j}` })));
      }
      client.close();
      const exited = new Promise((resolve) => daemon.proc.once("exit", resolve));
      stop(daemon);
      await exited;
      const lines = logLines(daemon);
      expect(lines.filter((line) => line.msg === "tool call" && line.tool === "echo" && line.status === "ok")).toHaveLength(CALLS);
      expect(lines.at(-1)?.msg).toBe("stopped");
    });
  }
});
