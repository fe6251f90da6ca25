import { terminalSafe } from "@venom/proto";
import { cleanupAll, cli, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const HOSTILE = "\u001b]2;PWNED\u0007\u009b2J\u202e";

describe("venom-mux: ls and errors escape what a pane's program or a request controls", () => {
  it("a pane whose command line carries controls and a bidi override is listed escaped; an error quoting a target too", async () => {
    const mux = await startMux();
    expect(cli(mux, ["new", "-d", "-n", "p", "--", "sleep", "300", HOSTILE]).code).toBe(0);
    const ls = cli(mux, ["ls"]);
    expect(ls.stdout).toContain("sleep 300 \\u001b]2;PWNED\\u0007\\u009b2J\\u202e");
    expect(ls.stdout, "raw control or bidi character").toBe(terminalSafe(ls.stdout));
    const error = cli(mux, ["send", "-t", `x${HOSTILE}`, "hi"]);
    expect(error.code).not.toBe(0);
    expect(error.stderr).toContain("\\u202e");
    expect(error.stderr, "raw control or bidi character").toBe(terminalSafe(error.stderr));
    await mux.stop();
  });
});
