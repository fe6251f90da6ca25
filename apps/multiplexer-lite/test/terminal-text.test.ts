import { afterAll, describe, expect, it } from "vitest";
import { cleanupAll, cli, startMux } from "../../../testkit/daemon.js";

afterAll(cleanupAll);

const HOSTILE = "\u001b]2;PWNED\u0007\u009b2J\u202e";
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

describe("venom-mux: ls and errors escape what a pane's program or a request controls", () => {
  it("a pane whose command line carries controls and a bidi override is listed escaped; an error quoting a target too", async () => {
    const mux = await startMux();
    expect(cli(mux, ["new", "-d", "-n", "p", "--", "sleep", "300", HOSTILE]).code).toBe(0);
    const ls = cli(mux, ["ls"]);
    expect(ls.stdout).toContain("sleep 300 \\u001b]2;PWNED\\u0007\\u009b2J\\u202e");
    expect(ls.stdout).not.toMatch(RAW);
    const error = cli(mux, ["send", "-t", `x${HOSTILE}`, "hi"]);
    expect(error.code).not.toBe(0);
    expect(error.stderr).toContain("\\u202e");
    expect(error.stderr).not.toMatch(RAW);
    await mux.stop();
  });
});
