import { spawnSync } from "node:child_process";
import { cleanupAll, startEcho, startMux, startOrch, WITHOUT_CAPABILITIES } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** `cat path` as another program of the daemon's user: same uid, no capabilities. */
function readAsTheUser(path: string): { code: number | null; stderr: string } {
  const [file, ...args] = [...WITHOUT_CAPABILITIES, "cat", path];
  const result = spawnSync(file as string, args, { encoding: "utf8" });
  return { code: result.status, stderr: result.stderr };
}

describe("daemons are not dumpable (docs/security-model.md, Descriptors)", () => {
  it("another process of the same user reads neither the environment nor the fds of venom-echo, venom-mux or venom-orch", async () => {
    const options = { execThrough: WITHOUT_CAPABILITIES };
    const daemons = [await startEcho(options), await startMux(options), await startOrch(options)];
    try {
      for (const daemon of daemons) {
        const pid = daemon.proc.pid as number;
        // The probe reaches the daemon: what /proc shows everyone of it stays readable.
        expect(readAsTheUser(`/proc/${pid}/status`).code).toBe(0);
        expect(readAsTheUser(`/proc/${pid}/environ`), `${daemon.bin}: environ`).toMatchObject({ code: 1, stderr: /Permission denied/ });
        expect(readAsTheUser(`/proc/${pid}/fdinfo/0`), `${daemon.bin}: fdinfo`).toMatchObject({ code: 1, stderr: /Permission denied/ });
      }
    } finally {
      for (const daemon of daemons) await daemon.stop();
    }
  });
});
