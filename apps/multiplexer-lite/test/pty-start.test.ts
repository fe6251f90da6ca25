import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterRecord, ptyExecPath } from "@venom/native";
import { cleanupAll, tempDir } from "@venom/testkit";
import * as pty from "node-pty";
import { afterAll, describe, expect, it } from "vitest";
import { endedAfterEach, needsTmux } from "./started.js";
import { poll, Tmux } from "./tmux.js";

/**
 * How a pane's program starts on its pty (packages/native/src/start-gate.ts), both ways: under
 * venom-pty-exec, and under the shell a build without a C compiler falls back
 * to. Each is spawned on a real pty as the pane spawns it.
 */

const started = endedAfterEach();
afterAll(cleanupAll);
const dir = tempDir("pty-start");
/** The record a started program waits for: here from the start, unless a test says otherwise. */
const written = join(dir, "record.json");
writeFileSync(written, "{}\n");

/** Runs argv the way a pane starts it, with `helper` (null: the shell); what it printed and how it ended. */
function run(argv: string[], helper: string | null, record = written): Promise<{ output: string; exitCode: number; pid: number }> {
  const start = afterRecord(record, argv[0] as string, argv.slice(1), helper);
  const child = pty.spawn(start.file, start.args, { name: "xterm-256color", cols: 80, rows: 24, cwd: dir, env: process.env });
  let output = "";
  child.onData((data) => {
    output += data;
  });
  return new Promise((resolve) => child.onExit(({ exitCode }) => resolve({ output, exitCode, pid: child.pid })));
}

it("starts a pane under venom-pty-exec, which the build compiled", () => {
  const helper = ptyExecPath();
  expect(helper).not.toBeNull();
  expect(afterRecord(written, "vim", ["notes.txt"])).toEqual({ file: helper, args: [written, "vim", "notes.txt"] });
});

it("venom-pty-exec hands its program no fd above stderr, even one it inherited that is not close-on-exec (docs/security-model.md, Descriptors)", async () => {
  const listOwnFds = afterRecord(written, "sh", ["-c", "ls /proc/$$/fd; :"]);
  const { output, exitCode } = await run(["bash", "-c", 'exec "$@" 99</dev/null', "bash", listOwnFds.file, ...listOwnFds.args], null);
  expect(exitCode).toBe(0);
  expect(output.trim().split(/\s+/)).toEqual(["0", "1", "2"]);
});

describe.each([
  ["venom-pty-exec", ptyExecPath()],
  ["the shell (a build without a C compiler)", null],
])("a program started under %s", (_name, helper) => {
  needsTmux();

  it("gets the terminal settings tmux gives a new pane: stty -a prints the same in both", async () => {
    const theirs = join(dir, `tmux-stty-${helper ? "c" : "sh"}.txt`);
    started.tmux(
      Tmux.start({ env: process.env, cols: 80, rows: 24, command: `stty -a > ${theirs}.tmp && mv ${theirs}.tmp ${theirs}; exec sleep 60` }),
    );
    const ours = await run(["stty", "-a"], helper);
    const reference = await poll(
      () => (existsSync(theirs) ? readFileSync(theirs, "utf8") : undefined),
      () => `no ${theirs}`,
      20_000,
    );
    expect(reference).toMatch(/-brkint/);
    expect(ours.exitCode).toBe(0);
    expect(ours.output.replace(/\r\n/g, "\n")).toBe(reference);
  });

  it("runs nothing before its record exists: the program starts once the daemon has written it", async () => {
    const record = join(dir, `late-${helper ? "c" : "sh"}.json`);
    const marker = join(dir, `ran-${helper ? "c" : "sh"}`);
    const ended = run(["sh", "-c", `echo started > ${marker}`], helper, record);
    // Long past a start's few milliseconds: it still waits.
    await new Promise((r) => setTimeout(r, 700));
    expect(existsSync(marker)).toBe(false);
    writeFileSync(record, "{}\n");
    expect((await ended).exitCode).toBe(0);
    expect(readFileSync(marker, "utf8")).toBe("started\n");
  });

  it("runs as the pid the pane knows: nothing stays between them", async () => {
    const { output, pid } = await run(["sh", "-c", 'echo "pid=$$"'], helper);
    expect(output).toContain(`pid=${pid}`);
  });

  it("exits 127 naming a program that is not there", async () => {
    const { output, exitCode } = await run([join(dir, "no-such-program"), "x"], helper);
    expect(exitCode).toBe(127);
    expect(output).toMatch(/no-such-program: not found/);
  });

  it("exits 126 for a file that is not executable", async () => {
    const file = join(dir, "not-executable");
    writeFileSync(file, "#!/bin/sh\necho ran\n");
    chmodSync(file, 0o644);
    const { output, exitCode } = await run([file], helper);
    expect(exitCode).toBe(126);
    expect(output).not.toContain("ran");
  });
});
