import { existsSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PaneInfo } from "@venom/proto";
import { cli, MUX_BIN, type StartOptions, type TestDaemon, tempDir } from "@venom/testkit";
import { impostorDaemon } from "@venom/testkit/proc";
import { describe, expect, it } from "vitest";
import { AltScreenFilter } from "../src/attach/altscreen.js";
import { cells } from "../src/attach/cells.js";
import { PrefixReader, parsePrefix } from "../src/attach/keys.js";
import { StatusGuard } from "../src/attach/status-guard.js";
import { statusText } from "../src/attach/status-line.js";
import { commandsOf } from "../src/commands/command-line.js";
import { endedAfterEach, type Mux, needsTmux } from "./started.js";
import { Tmux } from "./tmux.js";

/**
 * `venom-mux attach` as a person uses it: typed into a shell in a real tmux
 * window, against a real daemon with real ptys, judged by what the tmux screen
 * shows. Inner panes run bash with the prompt `inner$ `, the outer shell has
 * `outer$ `, so a screen says at a glance whose terminal it is.
 */

const BASH = ["bash", "--norc", "--noprofile"];
const started = endedAfterEach();

function daemon(options: StartOptions = {}): Promise<Mux> {
  return started.mux({ ...options, env: { PS1: "inner$ ", HISTFILE: "/dev/null", ...options.env } });
}

/** Run `venom-mux ARGS…` as a user would. */
function mux(d: TestDaemon, ...args: string[]) {
  return cli(d, args);
}

async function panes(d: Mux) {
  return (await d.client.request("pane/list")).panes;
}

/** A pane running bash, named `name`; `marker` is echoed in it so its screen is recognisable. */
async function pane(d: Mux, name: string, marker?: string): Promise<void> {
  await d.client.request("pane/new", { name, argv: BASH, cols: 100, rows: 30 });
  await capturePoll(d, name, /^inner\$ ?$/m);
  if (marker) {
    await d.client.request("pane/send", { target: name, data: `echo ${marker}`, enter: true });
    await capturePoll(d, name, new RegExp(`^${marker}$`, "m"));
  }
}

/** The pane's screen as `venom-mux capture` prints it. */
async function capture(d: Mux, target: string): Promise<string> {
  return (await d.client.request("pane/capture", { target })).text;
}

/** Poll a pane's screen until it matches. */
async function capturePoll(d: Mux, target: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await capture(d, target);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the screen of ${target} never matched ${pattern}:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Poll the pane list until `check` holds. */
async function panesPoll(d: Mux, check: (list: Awaited<ReturnType<typeof panes>>) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check(await panes(d))) {
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(await panes(d))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function terminal(d: Mux, size: { cols?: number; rows?: number } = {}): Tmux {
  const tmux = Tmux.start({ env: d.env, cwd: d.workspace, ...size });
  started.tmux(tmux);
  return tmux;
}

const NEEDS_CURSOR = fileURLToPath(new URL("./fixtures/needs-cursor.mjs", import.meta.url));
const attachLine = (target: string) => `${process.execPath} ${MUX_BIN} attach -t ${target}`;

/** Type `venom-mux attach -t target` in the outer shell and wait until `shows` is on the screen. */
async function attach(tmux: Tmux, target: string, shows: RegExp): Promise<string> {
  await tmux.waitFor(/^outer\$ ?$/m);
  tmux.enter(attachLine(target));
  return tmux.waitFor((screen) => shows.test(screen) && !screen.includes("outer$"));
}

/** The line a number puzzle prints: typing `echo word-$((6*7))` shows `word-42` only if the shell ran it. */
const ran = (word: string) => new RegExp(`^${word}$`, "m");

describe("venom-mux attach", () => {
  needsTmux();
  it("shows the existing screen, echoes typing, detaches with prefix d while the pane runs on, and re-attach restores the screen", async () => {
    const d = await daemon();
    await pane(d, "a", "before-attach");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("before-attach"));

    tmux.enter("echo typed-$((6*7))");
    await tmux.waitFor(ran("typed-42"));

    // Output that appears after the detach keeps going into the pane.
    tmux.enter("sleep 1; echo still-running-$((3*3))");
    tmux.keys("C-b", "d");
    const detached = await tmux.waitFor(/\[detached \(from pane %0\)\]\s*\nouter\$ ?$/m);
    expect(detached).toContain("outer-marker");
    expect(detached).not.toContain("typed-42");
    await capturePoll(d, "a", ran("still-running-9"));
    expect(mux(d, "capture", "-t", "a").stdout).toMatch(ran("still-running-9"));
    await panesPoll(d, ([a]) => a?.status === "running" && a.clients === 0, "the detached client is still counted");

    const again = await attach(tmux, "a", ran("still-running-9"));
    expect(again).toMatch(ran("before-attach"));
    expect(again).toMatch(ran("typed-42"));
    tmux.enter("echo second-$((2+3))");
    await tmux.waitFor(ran("second-5"));
  });

  it("restores a full-screen program on its alternate screen, and the user's shell screen after detach", async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `row ${String(i + 1).padStart(3, "0")}`).join("\n");
    const d = await daemon({ files: { "notes.txt": `${lines}\n` } });
    await pane(d, "a");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter("less notes.txt");
    await tmux.waitFor(/^row 001\n(.*\n)*row 028$/m);

    tmux.keys("C-b", "d");
    const shell = await tmux.waitFor(/\[detached \(from pane %0\)\]/);
    expect(shell).toContain("outer-marker");
    expect(shell).not.toContain("row 0");

    const restored = await attach(tmux, "a", /^row 001$/m);
    expect(restored).toMatch(/^row 028$/m);
    expect(restored).not.toContain("outer-marker");

    // Leaving less takes the pane back to its normal screen, drawn from the server's model.
    tmux.keys("q");
    const normal = await tmux.waitFor((s) => /^inner\$ less notes.txt\ninner\$ ?$/m.test(s) && !s.includes("row 0"));
    expect(normal).not.toContain("outer$");
    tmux.enter("echo after-less-$((4*4))");
    await tmux.waitFor(ran("after-less-16"));
  });

  it("gives the pane the client's size on attach and when the terminal is resized", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d, { cols: 100, rows: 30 });
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter("stty size");
    // One row is the status line's, as in tmux.
    await tmux.waitFor(/^29 100$/m);
    expect((await panes(d))[0]).toMatchObject({ cols: 100, rows: 29 });

    tmux.resize(80, 20);
    await panesPoll(d, ([a]) => a?.cols === 80 && a.rows === 19, "the pane never took the new size");
    tmux.enter("clear; stty size");
    await tmux.waitFor(/^19 80$/m);
  });

  it("shows tmux's status line below the pane: the panes, the one shown (*) and the last (-), kept there by scrolling and clear", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    await pane(d, "b", "pane-b-marker");
    const tmux = terminal(d, { cols: 100, rows: 30 });
    await attach(tmux, "a", ran("pane-a-marker"));
    const label = basename(d.workspace);
    const bottom = (screen: string) => (screen.split("\n")[29] ?? "").trimEnd();
    await tmux.waitFor((s) => bottom(s) === `[${label}] 0:a* 1:b`);

    // Output that scrolls the pane scrolls above the status line; clearing the pane's screen draws it again.
    tmux.enter("seq 1 200");
    await tmux.waitFor((s) => /^200$/m.test(s) && bottom(s) === `[${label}] 0:a* 1:b`);
    expect(tmux.screen().split("\n")[27]).toBe("200");
    tmux.enter("clear");
    await tmux.waitFor((s) => !/^200$/m.test(s) && bottom(s) === `[${label}] 0:a* 1:b`);
    // A program that asks for the bottom of the screen gets the pane's bottom row, not the status line's.
    tmux.enter("printf '\\033[99;1Hat-the-bottom'; sleep 1");
    await tmux.waitFor((s) => s.split("\n")[28]?.startsWith("at-the-bottom") === true);
    expect(bottom(tmux.screen())).toBe(`[${label}] 0:a* 1:b`);

    tmux.keys("C-b", "n");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && bottom(s) === `[${label}] 0:a- 1:b*`);
    // A pane made elsewhere appears in the status line within its interval (tmux's status-interval).
    await d.client.request("pane/new", { name: "c", argv: BASH, cols: 100, rows: 29 });
    await tmux.waitFor((s) => bottom(s) === `[${label}] 0:a- 1:b* 2:c`, 20_000);
  });

  it("leaves the status line off with [mux] status = false: the pane takes every row", async () => {
    const d = await daemon({ config: "[mux]\nstatus = false\n" });
    await pane(d, "a", "pane-a-marker");
    const tmux = terminal(d, { cols: 100, rows: 30 });
    await attach(tmux, "a", ran("pane-a-marker"));
    tmux.enter("stty size");
    await tmux.waitFor(/^30 100$/m);
    expect(tmux.screen()).not.toContain("0:a*");
  });

  it("lets two clients watch and type into one pane", async () => {
    const d = await daemon();
    await pane(d, "a");
    const one = terminal(d);
    const two = terminal(d);
    await attach(one, "a", /^inner\$ ?$/m);
    await attach(two, "a", /^inner\$ ?$/m);
    await panesPoll(d, ([a]) => a?.clients === 2, "two clients never showed as attached");

    one.enter("echo from-one-$((1+1))");
    await one.waitFor(ran("from-one-2"));
    await two.waitFor(ran("from-one-2"));
    two.enter("echo from-two-$((2+2))");
    await two.waitFor(ran("from-two-4"));
    await one.waitFor(ran("from-two-4"));

    one.keys("C-b", "d");
    await one.waitFor(/\[detached \(from pane %0\)\]/);
    two.enter("echo still-two-$((3+3))");
    await two.waitFor(ran("still-two-6"));
  });

  it("when the client whose size the pane took detaches, the pane takes the size of the latest one left, and it is redrawn", async () => {
    const d = await daemon();
    await pane(d, "a");
    const small = terminal(d, { cols: 80, rows: 20 });
    const large = terminal(d, { cols: 120, rows: 40 });
    await attach(small, "a", /^inner\$ ?$/m);
    await attach(large, "a", /^inner\$ ?$/m);
    await panesPoll(d, ([a]) => a?.clients === 2 && a.cols === 120 && a.rows === 39, "the larger client's size never won");
    large.keys("C-b", "d");
    await large.waitFor(/\[detached \(from pane %0\)\]/);
    await panesPoll(d, ([a]) => a?.clients === 1 && a.cols === 80 && a.rows === 19, "the pane kept the detached client's size");
    small.enter("clear; stty size");
    await small.waitFor(/^19 80$/m);
  });

  it("switches panes with prefix n, p and a digit, restoring each pane's screen", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    await pane(d, "b", "pane-b-marker");
    const tmux = terminal(d);
    await attach(tmux, "a", ran("pane-a-marker"));

    tmux.keys("C-b", "n");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && !s.includes("pane-a-marker"));
    // What is typed now goes to the pane shown.
    tmux.enter("echo typed-in-b-$((5*5))");
    await tmux.waitFor(ran("typed-in-b-25"));
    await capturePoll(d, "b", ran("typed-in-b-25"));
    expect(await capture(d, "a")).not.toContain("typed-in-b");

    tmux.keys("C-b", "p");
    await tmux.waitFor((s) => ran("pane-a-marker").test(s) && !s.includes("pane-b-marker"));
    tmux.keys("C-b", "1");
    await tmux.waitFor((s) => ran("typed-in-b-25").test(s) && !s.includes("pane-a-marker"));
    tmux.keys("C-b", "0");
    await tmux.waitFor((s) => ran("pane-a-marker").test(s) && !s.includes("pane-b-marker"));
    // n wraps around from the last pane to the first.
    tmux.keys("C-b", "n");
    await tmux.waitFor(ran("pane-b-marker"));
    tmux.keys("C-b", "n");
    await tmux.waitFor((s) => ran("pane-a-marker").test(s) && !s.includes("pane-b-marker"));
    // A digit with no pane changes nothing but says so.
    tmux.keys("C-b", "7");
    await tmux.waitFor(/no pane with index 7/);
    tmux.enter("echo still-a-$((7*7))");
    await tmux.waitFor(ran("still-a-49"));
    expect(tmux.screen()).toMatch(ran("pane-a-marker"));
  });

  it("lists panes to choose from with prefix w", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    await pane(d, "b", "pane-b-marker");
    const tmux = terminal(d);
    await attach(tmux, "a", ran("pane-a-marker"));

    tmux.keys("C-b", "w");
    const list = await tmux.waitFor(/choose a pane/);
    expect(list).toMatch(/^\* \(0\) %0 a: bash --norc --noprofile/m);
    expect(list).toMatch(/^ {2}\(1\) %1 b: bash --norc --noprofile/m);
    tmux.keys("j", "Enter");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && !s.includes("choose a pane"));

    tmux.keys("C-b", "w");
    await tmux.waitFor(/^\* \(1\) %1 b/m);
    tmux.keys("Up");
    tmux.keys("q");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && !s.includes("choose a pane"));

    tmux.keys("C-b", "w");
    await tmux.waitFor(/choose a pane/);
    tmux.keys("k", "Enter");
    await tmux.waitFor((s) => ran("pane-a-marker").test(s) && !s.includes("choose a pane"));
    tmux.enter("echo chose-a-$((8*8))");
    await capturePoll(d, "a", ran("chose-a-64"));
  });

  it("runs kill-pane at the : prompt, moving to the remaining pane, then detaches with [exited] after the last", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    await pane(d, "b", "pane-b-marker");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("pane-a-marker"));

    tmux.keys("C-b", ":");
    tmux.type("kill-pane");
    await tmux.waitFor(/^:kill-pane$/m);
    tmux.keys("Enter");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && !s.includes("pane-a-marker"));
    expect(mux(d, "ls").stdout).toMatch(/^%1 b: .* running \(1 attached\)\n$/);

    tmux.keys("C-b", ":");
    tmux.type("kill-pane");
    tmux.keys("Enter");
    const exited = await tmux.waitFor(/^\[exited\]\nouter\$ ?$/m);
    expect(exited).toContain("outer-marker");
    expect(await panes(d)).toEqual([]);
  });

  it("creates and renames panes from the : prompt, and reports an unknown command", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    const tmux = terminal(d);
    await attach(tmux, "a", ran("pane-a-marker"));

    tmux.keys("C-b", ":");
    tmux.type("new-window -n fresh -- bash --norc --noprofile");
    tmux.keys("Enter");
    await tmux.waitFor((s) => /^inner\$ ?$/m.test(s) && !s.includes("pane-a-marker"));
    tmux.enter("echo in-fresh-$((9*9))");
    await capturePoll(d, "fresh", ran("in-fresh-81"));
    expect((await panes(d)).find((p) => p.name === "fresh")).toMatchObject({ id: "%1", argv: BASH, cols: 100, rows: 29, clients: 1 });

    tmux.keys("C-b", ":");
    tmux.type("rename-window renamed");
    tmux.keys("Enter");
    await panesPoll(d, (list) => list.some((p) => p.id === "%1" && p.name === "renamed"), "the pane was never renamed");

    // The prompt shares the CLI's command table: its names, aliases and flags.
    tmux.keys("C-b", ":");
    tmux.type("neww -d -n quiet -- sleep 300");
    tmux.keys("Enter");
    await tmux.waitFor(/new pane %2 quiet/);
    // A sequence, as at tmux's prompt: a bare ; separates commands.
    tmux.keys("C-b", ":");
    tmux.type("neww -d -n s1 -- sleep 300 ; neww -d -n s2 -- sleep 300");
    tmux.keys("Enter");
    await panesPoll(d, (list) => ["s1", "s2"].every((n) => list.some((p) => p.name === n)), "the prompt's sequence never made both panes");
    tmux.keys("C-b", ":");
    tmux.type("killp -t s1 ; killp -t s2");
    tmux.keys("Enter");
    await panesPoll(d, (list) => !list.some((p) => p.name === "s1" || p.name === "s2"), "the prompt's sequence never killed both panes");
    tmux.keys("C-b", ":");
    tmux.type("send-keys 'echo typed-at-prompt-$((2*3))' Enter");
    tmux.keys("Enter");
    await capturePoll(d, "renamed", ran("typed-at-prompt-6"));
    tmux.keys("C-b", ":");
    tmux.type("capture-pane -t quiet");
    tmux.keys("Enter");
    await tmux.waitFor(/capture-pane runs from a shell: venom-mux capture/);
    tmux.keys("C-b", ":");
    tmux.type("killp -t quiet");
    tmux.keys("Enter");
    await panesPoll(d, (list) => !list.some((p) => p.name === "quiet"), "kill-pane -t at the prompt never killed the pane");

    tmux.keys("C-b", ":");
    tmux.type("frobnicate");
    tmux.keys("Enter");
    await tmux.waitFor(/unknown command: frobnicate/);
    // The message goes away with the next key, which still reaches the pane.
    tmux.enter("echo after-message-$((6+6))");
    await tmux.waitFor((s) => ran("after-message-12").test(s) && !s.includes("unknown command"));

    // Escape cancels the prompt without running anything.
    tmux.keys("C-b", ":");
    tmux.type("kill-pane");
    await tmux.waitFor(/^:kill-pane$/m);
    tmux.keys("Escape");
    await tmux.waitFor((s) => !s.includes(":kill-pane"));
    expect(await panes(d)).toHaveLength(2);
  });

  it("checks a command's argument count and flags by one declaration: the CLI and the : prompt give the same error", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    const errors = [
      { cli: ["rename", "-t", "a"], prompt: "rename-window", error: "missing NAME" },
      { cli: ["rename", "-t", "a", "x", "y"], prompt: "rename-window x y", error: "unexpected argument: y" },
      { cli: ["kill", "-t", "a", "-Z"], prompt: "kill-pane -Z", error: "unknown flag -Z" },
      { cli: ["next-window", "extra"], prompt: "next-window extra", error: "unexpected argument: extra" },
    ];
    for (const { cli: args, error } of errors) {
      const result = mux(d, ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(`venom-mux ${args[0]}: ${error}`);
    }
    const tmux = terminal(d);
    await attach(tmux, "a", ran("pane-a-marker"));
    for (const { prompt, error } of errors) {
      tmux.keys("C-b", ":");
      tmux.type(prompt);
      tmux.keys("Enter");
      await tmux.waitFor((s) => s.includes(`${prompt.split(" ")[0]}: ${error}; usage:`));
      tmux.keys("Escape");
      await tmux.waitFor((s) => !s.includes(error));
    }
    expect((await panes(d)).map((p) => p.name)).toEqual(["a"]);
  });

  it("stops the daemon with kill-server at the : prompt, ending with [server exited]", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("pane-a-marker"));
    tmux.keys("C-b", ":");
    tmux.type("kill-server");
    tmux.keys("Enter");
    const screen = await tmux.waitFor(/^\[server exited\]\nouter\$ ?$/m);
    expect(screen).toContain("outer-marker");
    await new Promise<void>((resolve) => (d.proc.exitCode !== null ? resolve() : d.proc.once("exit", () => resolve())));
    expect(mux(d, "status").code).toBe(4);
  });

  it("sends the prefix itself when it is pressed twice, and ignores unknown keys after it", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d);
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.keys("C-b", "z");
    tmux.enter("cat -v");
    tmux.keys("C-b", "C-b");
    tmux.keys("Enter");
    await tmux.waitFor(/^\^B$/m);
    tmux.keys("C-c");
    tmux.enter("echo fine-$((10+1))");
    await tmux.waitFor(ran("fine-11"));
  });

  it("a client that stopped reading while the pane printed megabytes shows the pane's final screen when it resumes", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d);
    await attach(tmux, "a", /^inner\$ ?$/m);
    const [client] = tmux.shellChildren();
    expect(client).toBeGreaterThan(0);
    process.kill(client as number, "SIGSTOP");
    try {
      await d.client.request("pane/send", { target: "a", data: "seq 1 400000; echo done-$((40*40))", enter: true });
      await capturePoll(d, "a", ran("done-1600"));
    } finally {
      process.kill(client as number, "SIGCONT");
    }
    const screen = await tmux.waitFor((s) => ran("done-1600").test(s) && /^400000$/m.test(s), 30_000);
    expect(screen).not.toContain("outer$");
    tmux.enter("echo after-flood-$((5*5))");
    await tmux.waitFor(ran("after-flood-25"));
  });

  it("keeps the pane's terminal queries, title and clipboard writes off the real terminal; the daemon answers the queries", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d);
    // The outer tmux takes clipboard writes from its pane (this client) into a paste buffer: a leak would show there.
    tmux.run("set", "-g", "set-clipboard", "on");
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter(`printf '\\033]2;pane-title\\007\\033]52;c;c3RvbGVu\\007'; ${process.execPath} ${NEEDS_CURSOR}`);
    await tmux.waitFor(/^ready at \d+;1$/m);
    // Had a query reached the outer terminal, its answer would have been typed into the pane ahead of this line.
    tmux.enter("hello");
    await tmux.waitFor(/^got: "hello"$/m);
    expect(tmux.run("display-message", "-p", "#{pane_title}")).not.toContain("pane-title");
    expect(tmux.run("list-buffers")).toBe("");
  });

  it("lets clipboard writes through with [mux] allow_clipboard = true", async () => {
    const d = await daemon({ config: "[mux]\nallow_clipboard = true\n" });
    await pane(d, "a");
    const tmux = terminal(d);
    tmux.run("set", "-g", "set-clipboard", "on");
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter("printf '\\033]52;c;c2hhcmVk\\007'; echo printed-$((2*4))");
    await tmux.waitFor(ran("printed-8"));
    await expect.poll(() => tmux.run("show-buffer"), { timeout: 10_000 }).toBe("shared");
  });

  it("new whose program has exited by the time it attaches ends as any exited pane does: [exited], exit 0 (tmux)", async () => {
    const d = await daemon();
    const tmux = terminal(d);
    await tmux.waitFor(/^outer\$ ?$/m);
    tmux.enter(`${process.execPath} ${MUX_BIN} new -n quick -- sh -c 'echo bye; exit 4'; echo exit-code-$?`);
    await tmux.waitFor(/^\[exited\]\n.*^exit-code-0$/ms);
    // The pane was made, and ended with its program's code.
    expect((await panes(d)).map((p) => [p.name, p.status, p.exitCode])).toEqual([["quick", "exited", 4]]);
  });

  it("refuses to attach from inside one of the daemon's own panes, with exit code 3 like every refusal", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d);
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter(`${attachLine("a")}; echo exit-code-$?`);
    await tmux.waitFor(/refused: this terminal is one of this venom-mux daemon's panes[\s\S]*^exit-code-3$/m);
    tmux.enter("echo still-here-$((2*2))");
    await tmux.waitFor(ran("still-here-4"));
    expect((await panes(d))[0]).toMatchObject({ clients: 1 });
  });

  it("a socket another uid listens on never gets a keystroke: attach refuses it before a byte is sent, naming that uid", async () => {
    const home = tempDir("attach-impostor");
    const impostor = await impostorDaemon(home, "mux");
    try {
      const tmux = Tmux.start({ env: { ...process.env, VENOM_HOME: home } });
      started.tmux(tmux);
      await tmux.waitFor(/^outer\$ ?$/m);
      tmux.enter(`${process.execPath} ${MUX_BIN} attach; echo exit-code-$?`);
      await tmux.waitFor(/the server on .*mux\.sock runs as uid 65534,\s+not as you[\s\S]*^exit-code-1$/m);
      await expect.poll(() => impostor.heard(), { timeout: 20_000 }).toContain("CLOSED");
      expect(impostor.heard()).not.toContain("GOT");
    } finally {
      impostor.kill();
    }
  });

  it("detaches with [exited] when its only pane exits", async () => {
    const d = await daemon();
    await pane(d, "a");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.enter("exit");
    const screen = await tmux.waitFor(/^\[exited\]\nouter\$ ?$/m);
    expect(screen).toContain("outer-marker");
    expect((await panes(d))[0]).toMatchObject({ id: "%0", status: "exited", exitCode: 0 });
  });

  it("restores the terminal and says so when the daemon dies while attached", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("pane-a-marker"));

    d.proc.kill("SIGKILL");
    const screen = await tmux.waitFor(/\[lost server\].*daemon closed[\s\S]*\nouter\$ ?$/m);
    expect(screen).toContain("outer-marker");
    expect(screen).not.toContain("pane-a-marker");
    tmux.enter("echo back");
    await tmux.waitFor(/^back$/m);
    // Cooked mode and echo are back: the terminal is usable as before.
    tmux.enter("stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo");
    await tmux.waitFor(/^icanon echo ?$/m);
  });

  it("restores the terminal when the client is terminated", async () => {
    const d = await daemon();
    await pane(d, "a", "pane-a-marker");
    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("pane-a-marker"));
    const [client] = tmux.shellChildren();
    expect(client).toBeGreaterThan(0);
    process.kill(client as number, "SIGTERM");
    const screen = await tmux.waitFor(/\[terminated by SIGTERM\]\nouter\$ ?$/m);
    expect(screen).toContain("outer-marker");
    tmux.enter("stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo");
    await tmux.waitFor(/^icanon echo ?$/m);
    // The pane runs on.
    expect((await panes(d))[0]).toMatchObject({ id: "%0", status: "running" });
  });

  it("takes the prefix from [mux] prefix in config.toml, and refuses XON/XOFF", async () => {
    const d = await daemon({ config: '[mux]\nprefix = "C-a"\n' });
    await pane(d, "a");
    const tmux = terminal(d);
    await attach(tmux, "a", /^inner\$ ?$/m);
    tmux.keys("C-a", "d");
    await tmux.waitFor(/\[detached \(from pane %0\)\]/);
    // The attached client read the configuration through its memo (config-memo.ts); an edit is still seen below.
    expect(existsSync(join(d.home, "state", "config-memo.mux.json"))).toBe(true);

    for (const key of ["C-s", "C-q"]) {
      writeFileSync(join(d.home, "config.toml"), `[mux]\nprefix = "${key}"\n`);
      const refused = mux(d, "attach", "-t", "a");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/config\.toml: key mux\.prefix: .*(XOFF|XON).*flow control/);
    }
  });

  it("runs the command a key is bound to in [mux.bindings], ignores an unbound key, and list-keys shows the table", async () => {
    const config = [
      "[mux.bindings]",
      'K = "kill-pane"',
      'x = ""',
      'd = "new-window -d -n by-d -- sleep 300"',
      'D = "detach-client"',
      "",
    ].join("\n");
    const d = await daemon({ config });
    await pane(d, "a", "pane-a-marker");
    await pane(d, "b", "pane-b-marker");
    const keys = mux(d, "list-keys");
    expect(keys.code).toBe(0);
    expect(keys.stdout).toMatch(/^bind-key -T prefix K +kill-pane$/m);
    expect(keys.stdout).toMatch(/^bind-key -T prefix d +new-window -d -n by-d -- sleep 300$/m);
    expect(keys.stdout).toMatch(/^bind-key -T prefix n +next-window$/m);
    expect(keys.stdout).toMatch(/^bind-key -T prefix C-b +send-prefix$/m);
    expect(keys.stdout).not.toMatch(/^bind-key -T prefix x /m);

    const tmux = terminal(d);
    tmux.enter("echo outer-marker");
    await attach(tmux, "a", ran("pane-a-marker"));
    // x is unbound: no kill-pane question, and what is typed next still reaches the pane.
    tmux.keys("C-b", "x");
    tmux.enter("echo after-x-$((4*4))");
    await tmux.waitFor(ran("after-x-16"));
    expect(tmux.screen()).not.toContain("(y/n)");
    // d runs its new command instead of detaching.
    tmux.keys("C-b", "d");
    await tmux.waitFor(/new pane %2 by-d/);
    await panesPoll(d, (list) => list.some((p) => p.name === "by-d"), "prefix d never ran its new command");
    expect(tmux.screen()).not.toContain("[detached");
    // K kills the pane shown, as kill-pane at the prompt does.
    tmux.keys("C-b", "K");
    await tmux.waitFor((s) => ran("pane-b-marker").test(s) && !s.includes("pane-a-marker"));
    expect((await panes(d)).some((p) => p.name === "a")).toBe(false);
    tmux.keys("C-b", "D");
    await tmux.waitFor(/\[detached \(from pane %1\)\]/);
  });

  it("refuses a binding in [mux.bindings] that is not one key or not a command line the prompt runs, naming the key", async () => {
    const config = [
      "[mux.bindings]",
      'Kx = "kill-pane"',
      'F = "frobnicate"',
      'G = "kill-pane -Z"',
      'H = "capture-pane"',
      'J = "new-window \\"unterminated"',
      "",
    ].join("\n");
    const refused = daemon({ config });
    await expect(refused).rejects.toThrow(/key mux\.bindings\.Kx: "Kx" is not one key/);
    await expect(refused).rejects.toThrow(/key mux\.bindings\.F: unknown command: frobnicate/);
    await expect(refused).rejects.toThrow(/key mux\.bindings\.G: kill-pane: unknown flag -Z/);
    await expect(refused).rejects.toThrow(/key mux\.bindings\.H: capture-pane runs from a shell/);
    await expect(refused).rejects.toThrow(/key mux\.bindings\.J: unterminated " quote/);
  });

  it("without a terminal, fails with a clear message and exit code 2", async () => {
    const d = await daemon();
    await pane(d, "a");
    const result = mux(d, "attach", "-t", "a");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/attach: needs a terminal/);
    expect(mux(d, "attach", "a", "--json").code).toBe(2);
  });
});

describe("attach building blocks", () => {
  it("keeps the pane's screen switches away from the outer terminal, even split across reads", () => {
    const filter = new AltScreenFilter();
    expect(filter.feed("a\x1b[?1049hb")).toEqual({ text: "a\x1b[2Jb", leftAlternate: false });
    expect(filter.alternate).toBe(true);
    expect(filter.feed("c\x1b[?10")).toEqual({ text: "c", leftAlternate: false });
    expect(filter.holding).toBe(true);
    // Leaving: the rest is dropped, the screen comes from the server instead.
    expect(filter.feed("49lrest")).toEqual({ text: "", leftAlternate: true });
    expect(filter.feed("\x1b[?1;47h\x1b[31mx")).toEqual({ text: "\x1b[?1h\x1b[2J\x1b[31mx", leftAlternate: false });
    filter.reset();
    expect(filter.feed("\x1b[?1049lplain")).toEqual({ text: "plain", leftAlternate: false });
    expect(filter.feed("\x1bc")).toEqual({ text: "\x1b[!p\x1b[H\x1b[2J", leftAlternate: false });
    expect(filter.feed("\x1b[?25l\x1b[1;1H")).toEqual({ text: "\x1b[?25l\x1b[1;1H", leftAlternate: false });
  });

  it("keeps a pane's output above the status line, even split across reads, and says when it erased it", () => {
    const guard = new StatusGuard(() => 23);
    expect(guard.feed("a\x1b[r")).toEqual({ text: "a\x1b[1;23r", erased: false });
    expect(guard.feed("\x1b[5;")).toEqual({ text: "", erased: false });
    expect(guard.feed("40rb\x1b[99;3Hc\x1b[50dd\x1b[10;2H")).toEqual({
      text: "\x1b[5;23rb\x1b[23;3Hc\x1b[23dd\x1b[10;2H",
      erased: false,
    });
    for (const erase of ["\x1b[J", "\x1b[0J", "\x1b[2J", "\x1b#8", "\x1b[?J"]) expect(guard.feed(`x${erase}`).erased, erase).toBe(true);
    expect(guard.feed("\x1b[1J\x1b[3J\x1b[K")).toEqual({ text: "\x1b[1J\x1b[3J\x1b[K", erased: false });
    expect(guard.feed("\x1b[!p")).toEqual({ text: "\x1b[!p\x1b[1;23r", erased: true });
  });

  it("measures the status line in display cells: wide characters and emoji take two, a long title is cut at 21 cells", () => {
    const pane = (index: number, name: string, title?: string) =>
      ({ id: `%${index}`, index, name, ...(title ? { title } : {}) }) as PaneInfo;
    const panes = [pane(0, "work", "日本語のタイトルはとても長いのでここで切られます"), pane(1, "agent")];
    const line = statusText({ label: "proj", panes, current: "%0", last: "%1" }, 60);
    expect(cells(line)).toBe(60);
    expect(line).toMatch(/^\[proj\] 0:work\* 1:agent- +"日本語のタイトルはと"$/);
    // Too narrow for the title: the panes keep the room. A title's controls are escaped.
    expect(statusText({ label: "proj", panes, current: "%0", last: undefined }, 20)).toBe("[proj] 0:work* 1:age");
    const hostile = statusText({ label: "p", panes: [pane(0, "w", "\x1b]0;x\x07🙂")], current: "%0", last: undefined }, 40);
    expect(hostile.includes("\x1b") || hostile.includes("\x07")).toBe(false);
    expect(cells(hostile)).toBe(40);
  });

  it("reads the prefix and its key, whole or split, and passes everything else through", () => {
    const reader = new PrefixReader("\x02");
    const steps = (text: string) => {
      const out = [];
      for (let rest = text; rest !== ""; ) {
        const next = reader.next(rest);
        out.push(next.step);
        rest = next.rest;
      }
      return out;
    };
    expect(steps("ls\x02dmore")).toEqual([
      { kind: "send", data: "ls" },
      { kind: "command", key: "d" },
      { kind: "send", data: "more" },
    ]);
    expect(steps("\x02")).toEqual([{ kind: "pending" }]);
    expect(steps("\x1b[Ax")).toEqual([
      { kind: "command", key: "\x1b[A" },
      { kind: "send", data: "x" },
    ]);
    expect(steps("\x02\x02")).toEqual([{ kind: "command", key: "\x02" }]);
  });

  it("accepts tmux's prefix spellings and refuses flow control and Escape", () => {
    expect(parsePrefix("C-b")).toBe("\x02");
    expect(parsePrefix("C-a")).toBe("\x01");
    expect(parsePrefix("^a")).toBe("\x01");
    expect(parsePrefix("`")).toBe("`");
    expect(() => parsePrefix("C-s")).toThrow(/XOFF/);
    expect(() => parsePrefix("C-q")).toThrow(/XON/);
    expect(() => parsePrefix("C-[")).toThrow(/Escape/);
    expect(() => parsePrefix("Ctrl+b")).toThrow(/write it like "C-b"/);
  });

  it("splits prompt commands into words with quotes, and sequences at a bare ;", () => {
    expect(commandsOf(`new-window -n x -- sh -c 'echo "hi there"'`)).toEqual([
      ["new-window", "-n", "x", "--", "sh", "-c", 'echo "hi there"'],
    ]);
    expect(commandsOf(`rename-window "a b"\\ c`)).toEqual([["rename-window", "a b c"]]);
    expect(commandsOf(`neww -d ; send-keys \\; ';' Enter ;`)).toEqual([
      ["neww", "-d"],
      ["send-keys", ";", ";", "Enter"],
    ]);
  });
});
