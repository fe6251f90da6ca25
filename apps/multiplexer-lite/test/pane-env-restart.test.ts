import { cleanupAll, cli, connect, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const shell = ["--", "bash", "--norc", "--noprofile"];

describe("venom-mux: panes and the daemon's own terminal", () => {
  it("panes never inherit TMUX, TMUX_PANE, STY, WINDOW, WINDOWID, TERMCAP, COLUMNS or LINES from the daemon", async () => {
    const leaked = {
      TMUX: "/tmp/tmux-0/default,1,0",
      TMUX_PANE: "%9",
      STY: "1.pts",
      WINDOW: "3",
      WINDOWID: "42",
      TERMCAP: "xx",
      COLUMNS: "7",
      LINES: "3",
    };
    const mux = await startMux({ env: leaked });
    for (const policy of ["inherit", "delegated"]) {
      const made = cli(mux, [
        "new",
        "-d",
        "-n",
        policy,
        ...(policy === "delegated" ? ["--delegated"] : []),
        "--",
        "bash",
        "--norc",
        "--noprofile",
      ]);
      expect(made.code, made.stderr).toBe(0);
      cli(mux, [
        "send",
        "-t",
        policy,
        "clear; env | grep -cE '^(TMUX|TMUX_PANE|STY|WINDOW|WINDOWID|TERMCAP|COLUMNS|LINES)=' ; echo done",
        "Enter",
      ]);
      await expect.poll(() => cli(mux, ["capture", "-t", policy]).stdout, { timeout: 30_000 }).toMatch(/^0\ndone/m);
    }
    await mux.stop();
  });

  it("restart --when-idle from a delegate waits until no pane is running", async () => {
    const mux = await startMux();
    const before = (await (await connect(mux)).request("daemon/status")).instance;
    cli(mux, ["new", "-d", "-n", "work", "--", "sleep", "300"]);
    cli(mux, ["new", "-d", "-n", "agent", ...shell]);
    cli(mux, ["send", "-t", "agent", `${process.execPath} ${mux.bin} restart --when-idle; echo "r=$?"`, "Enter"]);
    await expect.poll(() => cli(mux, ["capture", "-t", "agent"]).stdout, { timeout: 30_000 }).toMatch(/r=0/);
    // Still the same daemon, and the panes run on.
    const status = JSON.parse(cli(mux, ["status", "--json"]).stdout);
    expect(status.instance).toBe(before);
    expect(cli(mux, ["ls"]).stdout).toMatch(/work: sleep 300 .* running/);
    cli(mux, ["kill", "-t", "work"]);
    cli(mux, ["kill", "-t", "agent"]);
    // Once nothing runs, it restarts: a new instance answers on the same socket.
    await expect
      .poll(
        () => {
          const now = cli(mux, ["status", "--json"]);
          return now.code === 0 ? JSON.parse(now.stdout).instance : before;
        },
        { timeout: 30_000 },
      )
      .not.toBe(before);
    cli(mux, ["stop"]);
  });
});
