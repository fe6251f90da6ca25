import { bashComplete, cleanupAll, cli, MUX_BIN, startMux, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("shell completion", () => {
  it("bash completes commands, aliases, flags and the running daemon's panes from the one command table", async () => {
    const mux = await startMux();
    const user = { env: mux.env, bin: MUX_BIN };
    for (const name of ["work", "build"]) expect(cli(user, ["new", "-d", "-n", name, "--", "sleep", "60"]).code).toBe(0);
    const complete = (line: string) => bashComplete(user, "venom-mux", line);
    expect(complete("venom-mux att")).toEqual(["attach", "attach-session"]);
    expect(complete("venom-mux ")).toEqual(expect.arrayContaining(["new", "ls", "capture", "kill", "completion", "list-keys"]));
    // A target, after -t or as the first argument, is a pane of the running daemon, by name or id.
    expect(complete("venom-mux attach -t w")).toEqual(["work"]);
    expect(complete("venom-mux kill ")).toEqual(expect.arrayContaining(["%0", "work", "%1", "build"]));
    expect(complete("venom-mux capture -t work -")).toEqual(expect.arrayContaining(["-S", "-E", "-e", "-J", "--json", "--help"]));
    // Only the command the cursor is in counts in a sequence.
    expect(complete("venom-mux new -d \\; send -t b")).toEqual(["build"]);
    // A flag's value that is not a pane (a directory) offers nothing, so bash completes file names.
    expect(complete("venom-mux new -c ")).toEqual([]);
    expect(complete("venom-mux completion ")).toEqual(["bash", "zsh", "fish"]);
    expect(complete("venom-mux nosuch ")).toEqual([]);
  });

  it("with no daemon running, completion offers no panes and starts nothing", () => {
    const user = { env: { ...process.env, VENOM_HOME: tempDir("home") }, bin: MUX_BIN };
    expect(bashComplete(user, "venom-mux", "venom-mux kill -t ")).toEqual([]);
    expect(cli(user, ["status"]).code).toBe(4);
  });

  it("zsh and fish scripts come from the same table; an unknown shell is a usage error", () => {
    const user = { env: process.env, bin: MUX_BIN };
    expect(cli(user, ["completion", "zsh"]).stdout).toMatch(/^compdef _venom_mux_complete venom-mux$/m);
    expect(cli(user, ["completion", "fish"]).stdout).toMatch(/^complete -c venom-mux -f -a '\(_venom_mux_complete\)'$/m);
    const bad = cli(user, ["completion", "tcsh"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected one shell: bash, zsh or fish/);
  });
});
