import { spawnSync } from "node:child_process";
import { cleanupAll, startEcho, startMux, startOrch, WITHOUT_CAPABILITIES } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const RUNTIME = new URL("../../../packages/runtime/dist/index.js", import.meta.url).href;
const NATIVE = new URL("../../../packages/native/dist/index.js", import.meta.url).href;

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

  it("a client that is not dumpable, as a daemon that is a delegate, is still a delegate: it declares its markers in hello", async () => {
    const daemon = await startEcho({ execThrough: WITHOUT_CAPABILITIES });
    try {
      const script = `
        const { setNotDumpable } = await import(${JSON.stringify(NATIVE)});
        const { VenomClient } = await import(${JSON.stringify(RUNTIME)});
        setNotDumpable();
        const client = await VenomClient.connect(${JSON.stringify(daemon.socket)}, { client: { name: "nested", version: "0" } });
        console.log(JSON.stringify(client.hello.principal));
        client.close();`;
      const [file, ...args] = [...WITHOUT_CAPABILITIES, process.execPath, "--input-type=module", "-e", script];
      const result = spawnSync(file as string, args, {
        env: { ...daemon.env, VENOM_PARENT: "orch/nested-record", VENOM_DELEGATION_DEPTH: "1" },
        encoding: "utf8",
      });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ kind: "delegate", depth: 1 });
    } finally {
      await daemon.stop();
    }
  });
});
