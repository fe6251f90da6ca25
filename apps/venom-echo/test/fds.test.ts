import { cleanupAll, connect, LEAKED_FD, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const approve = { gate: async () => "approve" as const };
/** The shell lists its own fds while ls runs (`; :` keeps it from exec'ing ls in its place). */
const LIST_OWN_FDS = ["/bin/sh", "-c", "ls /proc/$$/fd; :"];

describe("run: the process holds no fd of venom-echo's (docs/security-model.md, Descriptors)", () => {
  for (const [what, config] of [
    ["unconfined", ""],
    ["confined by Landlock", '[sandbox]\nmode = "landlock"\n'],
  ] as const) {
    it(`a run ${what} holds only fds 0-2, while other clients are connected and the daemon inherited an fd`, async () => {
      const daemon = await startEcho({ config, execThrough: LEAKED_FD });
      const clients = await Promise.all([connect(daemon, approve), connect(daemon), connect(daemon)]);
      try {
        const result = await clients[0].callTool("run", { argv: LIST_OWN_FDS });
        expect(result.status).toBe("ok");
        expect(String(result.content).trim().split("\n").map(Number)).toEqual([0, 1, 2]);
      } finally {
        for (const client of clients) client.close();
        await daemon.stop();
      }
    });
  }
});
