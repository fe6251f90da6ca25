import { ErrorCode } from "@venom/proto";
import { cleanupAll, cli, connect, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("venom-mux: panes × screen × scrollback have a memory budget", () => {
  it("a pane or a resize that would pass mux.max_screen_memory_mb is refused with busy, naming the key", async () => {
    // 24 + 10000 lines of 80 cells, at 12 bytes a cell and 600 a line, is about 15 MiB: one such pane fits in 16 MiB, two do not.
    const mux = await startMux({ config: "[mux]\nmax_screen_memory_mb = 16\nscrollback_lines = 10000\n" });
    const client = await connect(mux);
    await client.request("pane/new", { argv: ["sleep", "300"], cols: 80, rows: 24 });
    const second = await client.request("pane/new", { argv: ["sleep", "300"], cols: 80, rows: 24 }).catch((e) => e);
    expect(second.code).toBe(ErrorCode.Busy);
    expect(second.message).toMatch(/needs about 15 MiB; panes already use about 15 of 16 MiB \(mux\.max_screen_memory_mb\)/);
    const grown = await client.request("pane/resize", { target: "%0", cols: 1000, rows: 1000 }).catch((e) => e);
    expect(grown.code).toBe(ErrorCode.Busy);
    expect((await client.request("pane/resize", { target: "%0", cols: 60, rows: 20 })).cols).toBe(60);
    expect(cli(mux, ["ls"]).stdout).toMatch(/%0 0: sleep 300 \[60x20\] running/);
    client.close();
    await mux.stop();
  });
});
