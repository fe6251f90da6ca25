import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PaneInfo } from "@venom/proto";
import { cleanupAll, cli, connect, MUX_BIN, RawClient, startMux, type TestDaemon, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** Poll the pane's screen until it matches. */
async function screenMatches(daemon: TestDaemon, target: string, pattern: RegExp, args: string[] = []): Promise<string> {
  let last = "";
  for (let i = 0; i < 300; i++) {
    last = cli(daemon, ["capture", "-t", target, ...args]).stdout;
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`pane ${target} never showed ${pattern}:\n${last}`);
}

const shell = ["--", "bash", "--norc", "--noprofile"];

describe("venom-mux panes", () => {
  it("new, ls, send, capture: a round trip as a tmux user would type it", async () => {
    const mux = await startMux();
    expect(cli(mux, ["new", "-d", "-n", "work", ...shell]).stdout).toBe("%0 work\n");
    expect(cli(mux, ["ls"]).stdout).toMatch(/^%0 work: bash --norc --noprofile \[80x24\] running\n$/);
    expect(cli(mux, ["send", "-t", "work", "echo $((6*7))", "Enter"]).code).toBe(0);
    await screenMatches(mux, "work", /^42$/m);
    // By id and by index too.
    expect(cli(mux, ["capture", "-t", "%0"]).stdout).toMatch(/^42$/m);
    expect(cli(mux, ["capture", "0"]).stdout).toMatch(/^42$/m);
    const unknown = cli(mux, ["capture", "-t", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no pane "nope" \(panes: %0 work\)/);
    await mux.stop();
  });

  it("answers to tmux's command names and aliases, new -s names the pane, and a failed new uses no id", async () => {
    const mux = await startMux();
    const failed = cli(mux, ["new", "-d", "--", "no-such-program-here"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/no such program: no-such-program-here/);
    expect(cli(mux, ["new-session", "-d", "-s", "work", ...shell]).stdout).toBe("%0 work\n");
    expect(cli(mux, ["send-keys", "-t", "work", "echo alias-$((6*7))", "Enter"]).code).toBe(0);
    await screenMatches(mux, "work", /^alias-42$/m);
    expect(cli(mux, ["capture-pane", "-p", "-t", "work"]).stdout).toMatch(/^alias-42$/m);
    expect(cli(mux, ["lsp"]).stdout).toMatch(/^%0 work: /);
    expect(cli(mux, ["killp", "-t", "work"]).code).toBe(0);
    const help = cli(mux, ["--help"]).stdout;
    expect(help).toMatch(/kill \s+end a pane .*\(also: kill-pane, killp/);
    expect(help).toMatch(/select-window +show another pane in the attached client .*\(also: selectw/);
    // The keys --help names come from the binding table (commands/bindings.ts), the same that attach runs.
    expect(help).toMatch(/detach-client +detach the attached client; its panes run on \(: prompt, prefix d\)/);
    expect(help).toMatch(/choose-tree +.*\(: prompt, prefix w s\)/);
    expect(help).toMatch(/new +open a pane: .*\(prefix c\)/);
    // One table: what only an attached client can do is known here too, and says where to do it.
    const prompt = cli(mux, ["next-window"]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toMatch(/next-window: works in an attached client only: venom-mux attach, then the prefix and :/);
    // Unknown flags and missing values are said plainly, with the usage (exit 2).
    const bogus = cli(mux, ["ls", "--bogus"]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toBe("venom-mux ls: unknown flag --bogus\nUsage: venom-mux ls\n");
    expect(cli(mux, ["capture", "-t", "work", "-Z"]).stderr).toMatch(/^venom-mux capture: unknown flag -Z\nUsage: venom-mux capture /);
    expect(cli(mux, ["new", "-d", "-x"]).stderr).toMatch(/^venom-mux new: -x needs a value\n/);
    expect(cli(mux, ["ls", "--json=yes"]).stderr).toMatch(/^venom-mux ls: --json takes no value\n/);
    expect(cli(mux, ["kill-server"]).code).toBe(0);
    expect(cli(mux, ["ls"]).code).toBe(4);
  });

  it("new with no daemon in the home starts one first, as tmux new starts its server, for the repository it runs in (said on stderr)", () => {
    const repo = realpathSync(tempDir("repo"));
    mkdirSync(join(repo, ".git"));
    const user = { env: { ...process.env, VENOM_HOME: tempDir("home") }, bin: MUX_BIN, cwd: repo };
    try {
      const made = cli(user, ["new", "-d", "-n", "first", "--", "sh", "-c", "echo started-here; sleep 30"]);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toBe("%0 first\n");
      const { pid, workspace } = JSON.parse(cli(user, ["status", "--json"]).stdout);
      expect(workspace).toBe(repo);
      expect(made.stderr).toBe(`venom-mux: no daemon was running: started one (pid ${pid}) for the workspace ${repo}\n`);
      expect(cli(user, ["ls"]).stdout).toMatch(/^%0 first: /);
    } finally {
      cli(user, ["kill-server"]);
    }
  });

  it("numbers panes as tmux: ids from %0, indexes from mux.base_index (0 by default), the lowest free index reused", async () => {
    const zero = await startMux();
    cli(zero, ["new", "-d", "-n", "a", "--", "sleep", "300"]);
    expect(JSON.parse(cli(zero, ["ls", "--json"]).stdout)).toMatchObject([{ id: "%0", index: 0 }]);
    await zero.stop();

    const mux = await startMux({ config: "[mux]\nbase_index = 1\n" });
    for (const name of ["a", "b", "c"]) cli(mux, ["new", "-d", "-n", name, "--", "sleep", "300"]);
    expect(cli(mux, ["kill", "-t", "b"]).code).toBe(0);
    cli(mux, ["new", "-d", "-n", "d", "--", "sleep", "300"]);
    const listed = (JSON.parse(cli(mux, ["ls", "--json"]).stdout) as PaneInfo[]).map((p) => `${p.id} ${p.index} ${p.name}`);
    expect(listed.sort()).toEqual(["%0 1 a", "%2 3 c", "%3 2 d"]);
    expect(cli(mux, ["capture", "-t", "2"]).code).toBe(0);
    // A number names an index before a name, as in tmux: a pane named "1" does not hide the pane at index 1.
    cli(mux, ["new", "-d", "-n", "1", "--", "sleep", "300"]);
    expect(cli(mux, ["kill", "-t", "1"]).code).toBe(0);
    const left = (JSON.parse(cli(mux, ["ls", "--json"]).stdout) as PaneInfo[]).map((p) => p.name);
    expect(left.sort()).toEqual(["1", "c", "d"]);
    // With no pane at that index, the name is found.
    expect(cli(mux, ["kill", "-t", "1"]).code).toBe(0);
    expect((JSON.parse(cli(mux, ["ls", "--json"]).stdout) as PaneInfo[]).map((p) => p.name).sort()).toEqual(["c", "d"]);
    await mux.stop();
  });

  it("capture follows tmux: -S/-E reach into scrollback, -J joins wrapped lines, -e keeps colours", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "p", ...shell]);
    cli(mux, [
      "send",
      "-t",
      "p",
      "for i in $(seq 1 60); do echo line$i; done; printf '\\033[31mred\\033[0m\\n'; printf 'x%.0s' $(seq 1 100); echo",
      "Enter",
    ]);
    await screenMatches(mux, "p", /^red$/m);
    const history = cli(mux, ["capture", "-t", "p", "-S", "-", "-E", "-1"]).stdout;
    expect(history).toMatch(/^line1$/m);
    expect(history).not.toMatch(/^red$/m);
    const visible = cli(mux, ["capture", "-t", "p"]).stdout;
    expect(visible).not.toMatch(/^line1$/m);
    expect(visible.split("\n").length).toBe(25);
    expect(cli(mux, ["capture", "-t", "p"]).stdout).toMatch(/^x{80}$/m);
    expect(cli(mux, ["capture", "-t", "p", "-J"]).stdout).toMatch(/^x{100}$/m);
    // As tmux: escapes where the style changes, so the default colour comes back with the next line's first cell.
    const lines = cli(mux, ["capture", "-t", "p", "-e"]).stdout.split("\n");
    expect(lines[lines.indexOf("\x1b[31mred") + 1]).toBe(`\x1b[39m${"x".repeat(80)}`);
    await mux.stop();
  });

  it("new starts in the caller's directory inside the workspace and takes a relative -c from it, as tmux; typed outside, from the workspace root", async () => {
    const mux = await startMux();
    const sub = join(mux.workspace, "sub");
    mkdirSync(join(sub, "deeper"), { recursive: true });
    const newFrom = (cwd: string, ...args: string[]) =>
      spawnSync(process.execPath, [MUX_BIN, "new", "-d", ...args, "--", "sh", "-c", "pwd; exec sleep 60"], {
        cwd,
        env: mux.env,
        encoding: "utf8",
      });
    expect(newFrom(sub, "-n", "here").status).toBe(0);
    expect(newFrom(sub, "-n", "relative", "-c", "deeper").status).toBe(0);
    expect(newFrom(tmpdir(), "-n", "outside").status).toBe(0);
    // Typed outside the workspace, a relative DIR is taken from the workspace root (docs/venom-mux.md, "new -c DIR").
    expect(newFrom(tmpdir(), "-n", "outside-sub", "-c", "sub").status).toBe(0);
    const outsideC = newFrom(tmpdir(), "-n", "refused", "-c", tmpdir());
    expect(outsideC.status).toBe(1);
    expect(outsideC.stderr).toMatch(/cwd/);
    await screenMatches(mux, "here", new RegExp(`^${realpathSync(sub)}$`, "m"));
    await screenMatches(mux, "relative", new RegExp(`^${realpathSync(join(sub, "deeper"))}$`, "m"));
    await screenMatches(mux, "outside", new RegExp(`^${realpathSync(mux.workspace)}$`, "m"));
    await screenMatches(mux, "outside-sub", new RegExp(`^${realpathSync(sub)}$`, "m"));
    await mux.stop();
  });

  it("the end of a flood is kept when its program exits at once: the last line is on the screen after wait --exit", async () => {
    // Six floods at once keep the screen worker behind, so each pty is paused when its program exits.
    const mux = await startMux();
    const names = ["f0", "f1", "f2", "f3", "f4", "f5"];
    for (const name of names) cli(mux, ["new", "-d", "-n", name, "--", "sh", "-c", "seq 1 30000; echo END-OF-OUTPUT"]);
    const last = names.map((name) => {
      expect(cli(mux, ["wait", "-t", name, "--exit"]).code).toBe(0);
      return cli(mux, ["capture", "-t", name]).stdout.trimEnd().split("\n").at(-1);
    });
    expect(last).toEqual(names.map(() => "END-OF-OUTPUT"));
    await mux.stop();
  });

  it("wait --for, --quiet and --exit each wait in one call, with clear exit codes", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "w", "--", "sh", "-c", "sleep 1; echo ready-$((6*7)); exec cat"]);
    expect(cli(mux, ["wait", "-t", "w", "--for", "^ready-42$"]).code).toBe(0);
    expect(cli(mux, ["wait", "-t", "w", "--quiet", "300"]).code).toBe(0);
    const json = JSON.parse(cli(mux, ["wait", "-t", "w", "--for", "ready-\\d+", "--json"]).stdout);
    expect(json).toEqual({ reason: "match", line: "ready-42" });
    expect(cli(mux, ["wait", "-t", "w", "--for", "never shown", "--timeout", "1"]).code).toBe(124);
    const both = cli(mux, ["wait", "-t", "w", "--for", "x", "--quiet", "5"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/choose one of --for, --quiet and --exit/);
    expect(cli(mux, ["wait", "-t", "w", "--for", "(unclosed"]).stderr).toMatch(/--for: not a regular expression/);

    cli(mux, ["new", "-d", "-n", "ends", "--", "sh", "-c", "sleep 1; echo bye; exit 3"]);
    expect(cli(mux, ["wait", "-t", "ends", "--for", "never shown"]).code).toBe(1);
    expect(cli(mux, ["wait", "-t", "ends", "--exit"]).code).toBe(3);
    expect(cli(mux, ["wait", "-t", "ends", "--for", "^bye$"]).code).toBe(0);
    await mux.stop();
  });

  it("output between a capture and a wait is not missed: pane/wait counts output since the capture's position", async () => {
    const mux = await startMux();
    const client = await connect(mux);
    const pane = await client.request("pane/new", { name: "cat", argv: ["cat"] });
    const before = await client.request("pane/capture", { target: pane.id });
    // The pane prints (cat's echo) after that capture and before the wait is asked: the race `wait --for` has.
    await client.request("pane/send", { target: pane.id, data: "printed-between\r" });
    await expect
      .poll(async () => (await client.request("pane/capture", { target: pane.id })).text, { timeout: 20_000 })
      .toMatch(/printed-between/);
    const late = await client.request("pane/wait", { target: pane.id, output: true, since: before.printed, timeoutSeconds: 10 });
    expect(late.reason).toBe("output");
    // Nothing printed since the latest capture: the wait waits.
    const now = await client.request("pane/capture", { target: pane.id });
    expect(now.printed).toBeGreaterThan(before.printed);
    const idle = await client.request("pane/wait", { target: pane.id, output: true, since: now.printed, timeoutSeconds: 0.5 });
    expect(idle.reason).toBe("timeout");
    client.close();
    await mux.stop();
  });

  it("commands chain as tmux sequences: A \\; B runs over one connection, a failure or a wait that timed out ends it, \\; a literal ;", async () => {
    const mux = await startMux();
    const sessions = () => readFileSync(join(mux.home, "logs", "mux.log"), "utf8").split('"session established"').length - 1;
    const before = sessions();
    const chained = cli(mux, [
      ...["new", "-d", "-n", "seq", "--", "sh", "-c", "echo ready; exec cat", ";"],
      ...["wait", "-t", "seq", "--for", "^ready$", ";"],
      ...["send", "-t", "seq", "-l", "a", "\\;", "b", ";"],
      ...["send", "-t", "seq", "Enter", ";"],
      ...["wait", "-t", "seq", "--for", "^a;b$", ";"],
      ...["capture", "-t", "seq"],
    ]);
    expect(chained.code).toBe(0);
    // Each command's output in turn: new's pane, then the capture (cat echoes the line the pty's echo already showed).
    expect(chained.stdout).toMatch(/^%0 seq\nready\na;b\na;b\n/);
    expect(sessions() - before).toBe(1);

    // The first failure ends the sequence with its code: no pane "never" is made.
    const failed = cli(mux, ["kill", "-t", "nosuch", ";", "new", "-d", "-n", "never", "--", "cat"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/kill: .*no pane "nosuch"/);
    expect(cli(mux, ["ls"]).stdout).not.toMatch(/never/);
    // A wait that did not see what it waited for ends the sequence: nothing is typed into that pane.
    const timedOut = cli(mux, [
      "wait",
      "-t",
      "seq",
      "--for",
      "never shown",
      "--timeout",
      "1",
      ";",
      "send",
      "-t",
      "seq",
      "typed-anyway",
      "Enter",
    ]);
    expect(timedOut.code).toBe(124);
    // wait --exit did what it was asked whatever the program's code: the kill after it runs, and the code is the sequence's.
    cli(mux, ["new", "-d", "-n", "ends", "--", "sh", "-c", "read line; exit 3"]);
    const exited = cli(mux, ["send", "-t", "ends", "Enter", ";", "wait", "-t", "ends", "--exit", ";", "kill", "-t", "ends"]);
    expect(exited.code).toBe(3);
    expect(cli(mux, ["ls"]).stdout).not.toMatch(/ends/);
    expect(cli(mux, ["capture", "-t", "seq"]).stdout).not.toMatch(/typed-anyway/);
    // A command that stops the daemon closes the sequence's connection: the next one says the daemon is not running.
    const stopped = cli(mux, ["ls", ";", "kill-server", ";", "ls"]);
    expect(stopped.stdout).toMatch(/^%0 seq: /);
    expect(stopped.code).toBe(4);
    expect(stopped.stderr).toMatch(/ls: no venom-mux daemon is running/);
  });

  it("ls --json tells each pane's foreground program, title, cursor and whether it waits for input, from the kernel", async () => {
    const mux = await startMux({ env: { PS1: "$ " } });
    cli(mux, ["new", "-d", "-n", "sh", ...shell]);
    const pane = async () => {
      const [info] = JSON.parse(cli(mux, ["ls", "--json"]).stdout) as PaneInfo[];
      return info as PaneInfo;
    };
    cli(mux, ["send", "-t", "sh", "printf '\\033]2;my title\\007'; clear", "Enter"]);
    await expect.poll(pane, { timeout: 20_000 }).toMatchObject({ title: "my title", cursor: { x: 2, y: 0 }, waitingForInput: true });
    expect((await pane()).foreground?.argv).toEqual(["bash", "--norc", "--noprofile"]);
    // A brief listing (what plain `ls` asks for) is the table alone: nothing from the screen or the kernel.
    const client = await connect(mux);
    const [brief] = (await client.request("pane/list", { brief: true })).panes as PaneInfo[];
    client.close();
    expect(brief).toMatchObject({ id: "%0", name: "sh", status: "running" });
    for (const key of ["title", "cursor", "foreground", "waitingForInput", "quietMs"]) expect(brief).not.toHaveProperty(key);
    expect(cli(mux, ["ls"]).stdout).toBe("%0 sh: bash --norc --noprofile [80x24] running\n");
    cli(mux, ["send", "-t", "sh", "sleep 30", "Enter"]);
    await expect.poll(async () => (await pane()).foreground?.argv, { timeout: 20_000 }).toEqual(["sleep", "30"]);
    // A sleeping program is not waiting for input, however quiet it is.
    expect(cli(mux, ["wait", "-t", "sh", "--quiet", "500"]).code).toBe(0);
    expect((await pane()).waitingForInput).toBe(false);
    cli(mux, ["send", "-t", "sh", "C-c"]);
    await expect.poll(async () => (await pane()).waitingForInput, { timeout: 20_000 }).toBe(true);
    // Blocked reading its terminal between lines, but printing every 50 ms: not waiting for input, it is still answering.
    cli(mux, ["send", "-t", "sh", "while :; do echo tick; read -t 0.05 line; done", "Enter"]);
    await expect.poll(async () => (await pane()).foreground?.argv, { timeout: 20_000 }).toEqual(["bash", "--norc", "--noprofile"]);
    expect(cli(mux, ["wait", "-t", "sh", "--for", "tick"]).code).toBe(0);
    for (let i = 0; i < 5; i++) expect((await pane()).waitingForInput).toBe(false);
    cli(mux, ["send", "-t", "sh", "C-c"]);
    await expect.poll(async () => (await pane()).waitingForInput, { timeout: 20_000 }).toBe(true);
    await mux.stop();
  });

  it("resize reaches `stty size` in the pane", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "r", ...shell]);
    expect(cli(mux, ["resize", "-t", "r", "-x", "100", "-y", "30"]).code).toBe(0);
    cli(mux, ["send", "-t", "r", "stty size", "Enter"]);
    await screenMatches(mux, "r", /^30 100$/m);
    await mux.stop();
  });

  it("every pane carries the markers and a delegation record; management typed in a pane is refused and the daemon lives", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "agent", ...shell]);
    cli(mux, ["send", "-t", "agent", "env | grep ^VENOM_ | sort", "Enter"]);
    await screenMatches(mux, "agent", /VENOM_DELEGATION_DEPTH=1\s+VENOM_HOME=\S+\s+VENOM_PARENT=[0-9a-f-]+\/mux-/);
    expect(readdirSync(join(mux.home, "state", "delegations"))).toHaveLength(1);
    const bin = `${process.execPath} ${mux.bin}`;
    cli(mux, ["send", "-t", "agent", `clear; ${bin} stop; echo "plain=$?"`, "Enter"]);
    await screenMatches(mux, "agent", /plain=3/);
    expect(cli(mux, ["capture", "-t", "agent", "-J"]).stdout).toMatch(/refused: .*Run it from a terminal outside the multiplexer/);
    cli(mux, ["send", "-t", "agent", `clear; env -i VENOM_HOME=${mux.home} ${bin} stop; echo "cleared=$?"`, "Enter"]);
    await screenMatches(mux, "agent", /cleared=3/);
    expect(cli(mux, ["capture", "-t", "agent", "-J"]).stdout).toMatch(
      /evidence: ancestry\)\. Run it from a terminal outside venom-mux's delegated processes \(outside the multiplexer's panes\)/,
    );
    expect(cli(mux, ["ls"]).stdout).toMatch(/%0 agent/);
    await mux.stop();
  });

  it("a pane made from inside a pane is one level deeper, and max depth is refused with a clear error", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "outer", ...shell]);
    const bin = `${process.execPath} ${mux.bin}`;
    cli(mux, ["send", "-t", "outer", `${bin} new -d -n inner -- bash --norc --noprofile; echo "made=$?"`, "Enter"]);
    await screenMatches(mux, "outer", /made=0/);
    cli(mux, ["send", "-t", "inner", "echo depth=$VENOM_DELEGATION_DEPTH", "Enter"]);
    await screenMatches(mux, "inner", /^depth=2$/m);
    cli(mux, ["send", "-t", "inner", `${bin} new -d -n third; echo "third=$?"`, "Enter"]);
    await screenMatches(mux, "inner", /third=3/);
    expect(cli(mux, ["capture", "-t", "inner", "-J"]).stdout).toMatch(/depth 3, over the limit of 2 \(agent\.max_delegation_depth\)/);
    await mux.stop();
  });

  it("`new` typed in one of the daemon's own panes creates the pane detached instead of nesting an attach", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "host", ...shell]);
    cli(mux, ["send", "-t", "host", `${process.execPath} ${mux.bin} new -n guest -- sleep 300; echo "new=$?"`, "Enter"]);
    await screenMatches(mux, "host", /new=0/);
    expect(cli(mux, ["capture", "-t", "host", "-J"]).stdout).toMatch(/created %1 detached: this terminal is one of its panes/);
    expect(cli(mux, ["ls"]).stdout).toMatch(/%1 guest: sleep 300 \[\d+x\d+\] running\n/);
    await mux.stop();
  });

  it("the screen an attaching client gets restores a hidden cursor and SGR mouse mode", async () => {
    const mux = await startMux();
    const client = await connect(mux);
    const plain = await client.request("pane/new", { argv: ["sleep", "300"] });
    const hiding = await client.request("pane/new", { argv: ["sh", "-c", "printf 'ready\\033[?25l\\033[?1006h'; sleep 300"] });
    await screenMatches(mux, hiding.id, /ready/);
    const fresh = await client.request("pane/attach", { target: plain.id });
    expect(fresh.screen.endsWith("\x1b[?25h\x1b[?1006l")).toBe(true);
    const hidden = await client.request("pane/attach", { target: hiding.id });
    expect(hidden.screen.endsWith("\x1b[?25l\x1b[?1006h")).toBe(true);
    client.close();
    await mux.stop();
  });

  it("pane names are unique targets: new and rename refuse a name in use, naming it", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "a", "--", "sleep", "300"]);
    cli(mux, ["new", "-d", "-n", "b", "--", "sleep", "300"]);
    expect(cli(mux, ["new", "-d", "-n", "a", "--", "sleep", "300"]).stderr).toMatch(/name: a pane named "a" exists/);
    expect(cli(mux, ["rename", "-t", "b", "a"]).stderr).toMatch(/name: a pane named "a" exists/);
    expect(cli(mux, ["rename", "-t", "b", "b"]).code).toBe(0);
    expect(cli(mux, ["rename", "-t", "b", "c"]).code).toBe(0);
    expect(cli(mux, ["ls"]).stdout).toMatch(/^%0 a: .*\n%1 c: /);
    await mux.stop();
  });

  it("kill ends the pane's whole process group, including a grandchild that ignores TERM", async () => {
    const mux = await startMux();
    const pane = JSON.parse(
      cli(mux, [
        "new",
        "-d",
        "--json",
        "--",
        "bash",
        "--norc",
        "-c",
        "trap '' TERM; (trap '' TERM; sleep 300) & echo $! > gc; exec sleep 300",
      ]).stdout,
    );
    let grandchild = 0;
    for (let i = 0; i < 200 && !grandchild; i++) {
      try {
        grandchild = Number(readFileSync(join(mux.workspace, "gc"), "utf8"));
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    expect(alive(grandchild)).toBe(true);
    expect(cli(mux, ["kill", "-t", pane.id]).code).toBe(0);
    expect(alive(grandchild)).toBe(false);
    expect(alive(pane.pid)).toBe(false);
    expect(cli(mux, ["ls"]).stdout).toBe("");
    expect(readdirSync(join(mux.home, "state", "delegations"))).toEqual([]);
    await mux.stop();
  });

  it("kill of a pane whose program already exited returns once what it left in its group is gone", async () => {
    const mux = await startMux();
    // The program exits at once, leaving a child in its group that ignores HUP and TERM: only the KILL after the grace ends it.
    cli(mux, ["new", "-d", "-n", "left", "--", "bash", "--norc", "-c", "(trap '' HUP TERM; sleep 300) & echo $! > left; exit 3"]);
    expect(cli(mux, ["wait", "-t", "left", "--exit"]).code).toBe(3);
    const child = Number(readFileSync(join(mux.workspace, "left"), "utf8"));
    expect(cli(mux, ["kill", "-t", "left"]).code).toBe(0);
    expect(alive(child)).toBe(false);
    expect(cli(mux, ["ls"]).stdout).toBe("");
    expect(readdirSync(join(mux.home, "state", "delegations"))).toEqual([]);
    await mux.stop();
  });

  it("wait returns the program's exit code, and ls keeps the status", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "job", "--", "sh", "-c", "exit 7"]);
    expect(cli(mux, ["wait", "-t", "job"]).code).toBe(7);
    expect(cli(mux, ["ls"]).stdout).toMatch(/%0 job: sh -c exit 7 \[80x24\] exited 7/);
    cli(mux, ["new", "-d", "-n", "long", "--", "sleep", "300"]);
    expect(cli(mux, ["wait", "-t", "long", "--timeout", "0.2"]).code).toBe(124);
    await mux.stop();
  });

  it("a pane cwd outside the workspace is refused, through a symlink too; inside works", async () => {
    const mux = await startMux();
    symlinkSync("/tmp", join(mux.workspace, "out"));
    for (const dir of ["/tmp", "out", ".."]) {
      const result = cli(mux, ["new", "-d", "-c", dir, "--", "true"]);
      expect(result.code, dir).toBe(1);
      expect(result.stderr).toMatch(/cwd/);
    }
    expect(cli(mux, ["new", "-d", "-c", mux.workspace, "--", "true"]).code).toBe(0);
    expect(cli(mux, ["new", "-d", "--", "no-such-program-xyz"]).stderr).toMatch(/no such program: no-such-program-xyz/);
    await mux.stop();
  });

  it("delegated panes carry no *_API_KEY or declared credential, and get a private HOME", async () => {
    const mux = await startMux({
      env: { OPENAI_API_KEY: "canary-openai", CLAUDE_CODE_OAUTH_TOKEN: "canary-oauth", GROK_TOKEN: "canary-grok" },
    });
    const client = await connect(mux);
    const pane = await client.request("pane/new", {
      argv: ["sh", "-c", "env > env.txt"],
      envPolicy: "delegated",
      agent: "claude",
      env: { SNEAKY_API_KEY: "canary-sneaky" },
    });
    await client.request("pane/wait", { target: pane.id });
    client.close();
    const env = readFileSync(join(mux.workspace, "env.txt"), "utf8");
    expect(env).not.toMatch(/canary-/);
    expect(env).toMatch(new RegExp(`^HOME=${join(mux.home, "agents", "claude")}$`, "m"));
    expect(env).toMatch(/^VENOM_DELEGATION_DEPTH=1$/m);
    await mux.stop();
  });

  it("kill -9 of the daemon then a restart leaves no orphan", async () => {
    const mux = await startMux();
    const pane = JSON.parse(
      cli(mux, ["new", "-d", "--json", "--", "bash", "--norc", "-c", "trap '' HUP; sleep 300 & echo $! > gc; wait"]).stdout,
    );
    let grandchild = 0;
    for (let i = 0; i < 200 && !grandchild; i++) {
      try {
        grandchild = Number(readFileSync(join(mux.workspace, "gc"), "utf8"));
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    mux.proc.kill("SIGKILL");
    await new Promise((r) => mux.proc.once("exit", r));
    expect(alive(grandchild)).toBe(true);
    const again = await startMux({ home: mux.home, workspace: mux.workspace });
    expect(alive(grandchild)).toBe(false);
    expect(alive(pane.pid)).toBe(false);
    expect(readdirSync(join(mux.home, "state", "delegations"))).toEqual([]);
    await again.stop();
  });

  it("max panes is enforced with a clear error", async () => {
    const mux = await startMux({ config: "[mux]\nmax_panes = 2\n" });
    expect(cli(mux, ["new", "-d", "--", "sleep", "300"]).code).toBe(0);
    expect(cli(mux, ["new", "-d", "--", "sleep", "300"]).code).toBe(0);
    const third = cli(mux, ["new", "-d", "--", "sleep", "300"]);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/at most 2 panes \(mux\.max_panes\)/);
    await mux.stop();
  });

  it("stop ends every pane", async () => {
    const mux = await startMux();
    const a = JSON.parse(cli(mux, ["new", "-d", "--json", "--", "sleep", "300"]).stdout);
    const b = JSON.parse(cli(mux, ["new", "-d", "--json", "--", "sh", "-c", "trap '' TERM; sleep 300"]).stdout);
    expect(cli(mux, ["stop"]).code).toBe(0);
    expect(alive(a.pid)).toBe(false);
    expect(alive(b.pid)).toBe(false);
  });
});

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1]) * 1024;
}

describe("slow clients (tmux: a client that falls behind is redrawn, never waited for)", () => {
  it("a client that stops reading while the pane prints 200 MB stalls neither the pane, a second client, nor daemon memory", async () => {
    const mux = await startMux();
    const pane = JSON.parse(
      cli(mux, [
        "new",
        "-d",
        "--json",
        "-n",
        "flood",
        "--",
        "sh",
        "-c",
        "sleep 1; yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 200000000; echo; echo FLOOD-DONE; sleep 300",
      ]).stdout,
    );
    // The stalled client: attaches, then never reads again.
    const stalled = await RawClient.open(mux.socket);
    stalled.hello();
    await stalled.next();
    stalled.request(2, "pane/attach", { target: pane.id });
    await stalled.next(2);
    stalled.socket.pause();

    const baseline = rssBytes(mux.proc.pid as number);
    let peak = baseline;
    const watcher = await connect(mux);
    let captures = 0;
    for (;;) {
      peak = Math.max(peak, rssBytes(mux.proc.pid as number));
      const { text } = await watcher.request("pane/capture", { target: "flood" });
      captures++;
      if (text.includes("FLOOD-DONE")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // The second client was answered all along, and memory stayed bounded although 200 MB went by.
    expect(captures).toBeGreaterThan(3);
    expect(peak - baseline).toBeLessThan(150 * 1024 * 1024);

    // Once the stalled client reads again it gets a redraw of the current screen, not the backlog.
    stalled.socket.resume();
    let redraw: any;
    for (let i = 0; i < 400 && !redraw; i++) {
      redraw = stalled.lines.find((l: any) => l.method === "pane/redraw");
      if (!redraw) await new Promise((r) => setTimeout(r, 25));
    }
    expect(redraw?.params.screen).toContain("FLOOD-DONE");
    const received = stalled.lines
      .filter((l: any) => l.method === "pane/output")
      .reduce((n: number, l: any) => n + l.params.data.length, 0);
    expect(received).toBeLessThan(50 * 1024 * 1024);
    stalled.close();
    watcher.close();
    await mux.stop();
  });
});
