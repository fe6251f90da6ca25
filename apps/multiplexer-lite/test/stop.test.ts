import { cleanupAll, cli, connect, startMux } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("venom-mux stop (docs/venom-mux.md, the tmux table)", () => {
  it("a daemon that has not exited 5 s after it was asked to stop is said to be still stopping, naming its pid, exit 1", async () => {
    const mux = await startMux();
    const client = await connect(mux);
    const { pid } = await client.request("daemon/status");
    // The pane's program outlives HUP and TERM, and a second after the HUP freezes the daemon (its parent):
    // the daemon has answered daemon/stop by then and cannot exit until it is continued.
    const program = 'trap "sleep 1; kill -STOP $PPID" HUP; trap "" TERM; echo ready; while :; do sleep 0.1; done';
    await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile", "-c", program], name: "holds" });
    await expect.poll(async () => (await client.request("pane/capture", { target: "holds", join: true })).text).toContain("ready");
    client.close();
    try {
      const stopped = cli(mux, ["stop"]);
      expect(stopped.code, stopped.stderr).toBe(1);
      expect(stopped.stderr).toContain(`venom-mux is still stopping (pid ${pid})`);
      expect(stopped.stdout).not.toContain("stopped");
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // Continued, it ends what it was ending (the pane is killed after its grace) and exits.
    await expect.poll(() => alive(pid), { timeout: 20_000 }).toBe(false);
  });
});
