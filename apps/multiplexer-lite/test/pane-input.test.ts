import { ErrorCode } from "@venom/proto";
import { cleanupAll, cli, connect, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("venom-mux: input to a pane is bounded", () => {
  it("typing into a pane whose program never reads stops with busy (-32006) instead of growing without bound", async () => {
    const mux = await startMux();
    expect(cli(mux, ["new", "-d", "-n", "deaf", "--", "sleep", "300"]).code).toBe(0);
    const client = await connect(mux);
    const chunk = "x".repeat(256 * 1024);
    let refused: { code?: number; message?: string } | undefined;
    // 32 MiB would be sent without a bound; the bound must answer long before.
    for (let i = 0; i < 128 && !refused; i++) {
      refused = await client.request("pane/send", { target: "deaf", data: chunk }).then(
        () => undefined,
        (error) => error,
      );
    }
    expect(refused?.code).toBe(ErrorCode.Busy);
    expect(refused?.message).toMatch(/not reading its input/);
    // Everyone else is still served, and the pane is still there.
    expect(cli(mux, ["ls"]).stdout).toMatch(/deaf: sleep 300 .* running/);
    client.close();
    await mux.stop();
  });
});
