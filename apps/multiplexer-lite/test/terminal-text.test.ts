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

  it("capture escapes the bidi overrides and isolates a program printed, and keeps the SGR escapes -e asks for", async () => {
    const mux = await startMux();
    cli(mux, [
      "new",
      "-d",
      "-n",
      "b",
      "--",
      "sh",
      "-c",
      "printf 'safe \\342\\200\\256txt.exe\\342\\200\\254 \\033[1mok\\033[0m\\n\\342\\201\\246iso\\n'; sleep 300",
    ]);
    let plain = "";
    for (let i = 0; i < 100 && !plain.includes("iso"); i++) {
      plain = cli(mux, ["capture", "-t", "b"]).stdout;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(plain).toContain("safe \\u202etxt.exe\\u202c ok\n\\u2066iso\n");
    const sgr = cli(mux, ["capture", "-e", "-t", "b"]).stdout;
    expect(sgr).toContain("safe \\u202etxt.exe\\u202c \u001b[1mok");
    expect(sgr).not.toMatch(/[\u202c\u202e\u2066]/);
    // The protocol keeps the pane's text as it is: JSON escapes it for whoever reads it.
    expect(JSON.parse(cli(mux, ["capture", "-t", "b", "--json"]).stdout).text).toContain("\u202etxt.exe\u202c");
    await mux.stop();
  });
});
