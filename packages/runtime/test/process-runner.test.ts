import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setChildSubreaper } from "@venom/native";
import { CallCancelled, CallDeadline, ToolFailure } from "@venom/proto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { groupMembers, isGone, killGroup, type ProcessRef, processStat, waitUntil } from "../src/proc.js";
import { type RunProcessOptions, runProcess, type SpawnInfo } from "../src/process-runner.js";

// The worker becomes a child subreaper, as a daemon does, so orphaned
// grandchildren are adopted by it and the runner must reap them. Vitest runs
// each test file in its own forked worker, so this stays within this file.
beforeAll(() => setChildSubreaper());

let tempDir: string;
let workspace: string;
let outside: string;
const spawned: SpawnInfo[] = [];

beforeAll(() => {
  tempDir = realpathSync(mkdtempSync(join(tmpdir(), "venom-runner-")));
  workspace = join(tempDir, "workspace");
  outside = join(tempDir, "outside");
  mkdirSync(join(workspace, "sub"), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(workspace, "escape"));
  symlinkSync(join(workspace, "sub"), join(workspace, "inner-link"));
  writeFileSync(join(workspace, "file"), "");
});
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));
afterEach(async () => {
  // Only matters if a test failed before the runner cleaned up.
  for (const info of spawned.splice(0)) await killGroup(info.pgid, info);
});

function options(overrides: Partial<RunProcessOptions>): RunProcessOptions {
  return {
    cwd: ".",
    workspaceRoot: workspace,
    // A HOME without profile files, so the login shell prints nothing of its own.
    env: { PATH: process.env.PATH, HOME: tempDir },
    timeoutSeconds: 30,
    maxOutputBytes: 64 * 1024,
    signal: new AbortController().signal,
    onSpawn: (info) => {
      spawned.push(info);
    },
    ...overrides,
  };
}

/** Members of the group that still run (zombies count as gone). */
function liveMembers(pgid: number): number[] {
  return groupMembers(pgid)
    .filter((member) => !isGone(member))
    .map((member) => member.pid);
}

function lastSpawn(): SpawnInfo {
  const info = spawned.at(-1);
  if (!info) throw new Error("nothing was spawned");
  return info;
}

/** Aborts `controller` with `reason` once `path` exists (the child's signal that its traps are set). */
async function abortWhenExists(controller: AbortController, path: string, reason: Error): Promise<void> {
  await waitUntil(() => existsSync(path), Date.now() + 10_000);
  controller.abort(reason);
}

describe("runProcess", () => {
  it("runs argv without a shell, and a command through a bash login shell, in the canonical cwd", async () => {
    const plain = await runProcess(options({ argv: ["pwd"], cwd: "inner-link" }));
    expect(plain).toEqual({
      exitCode: 0,
      signal: null,
      output: `${join(workspace, "sub")}\n`,
      outputBytes: join(workspace, "sub").length + 1,
      truncated: false,
      timedOut: false,
      cancelled: false,
    });
    expect(spawned).toHaveLength(1);
    expect(lastSpawn().pgid).toBe(lastSpawn().pid);

    const shell = await runProcess(
      options({ command: "shopt -q login_shell && echo login; echo to-stderr >&2; exit 3", cwd: join(workspace, "sub") }),
    );
    expect(shell).toMatchObject({ exitCode: 3, output: "login\nto-stderr\n" });
  });

  it("with a record to wait for, starts nothing until it exists; a program that cannot run then exits 127", async () => {
    const record = join(tempDir, "record.json");
    const marker = join(workspace, "started");
    const running = runProcess(options({ argv: ["sh", "-c", `echo started > ${marker}`], record }));
    // Long past a start's few milliseconds: it still waits.
    await new Promise((r) => setTimeout(r, 700));
    expect(existsSync(marker)).toBe(false);
    writeFileSync(record, "{}\n");
    expect(await running).toMatchObject({ exitCode: 0 });
    expect(readFileSync(marker, "utf8")).toBe("started\n");
    const missing = await runProcess(options({ argv: [join(tempDir, "no-such-program")], record }));
    expect(missing).toMatchObject({ exitCode: 127, output: expect.stringMatching(/no-such-program: not found/) });
  });

  it("needs exactly one of argv and command", async () => {
    await expect(runProcess(options({}))).rejects.toThrow(TypeError);
    await expect(runProcess(options({ argv: ["true"], command: "true" }))).rejects.toThrow(TypeError);
    expect(spawned).toHaveLength(0);
  });

  it("refuses a cwd outside the workspace, through a symlink pointing out, with .., or not a directory, without spawning", async () => {
    const marker = join(outside, "spawned");
    for (const cwd of [outside, "escape", join(workspace, "escape"), "..", "sub/..", "sub/../../outside", "missing", "file"]) {
      await expect(runProcess(options({ command: `touch ${marker}`, cwd }))).rejects.toThrow(ToolFailure);
    }
    expect(spawned).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });

  it("reports an executable that cannot start as a ToolFailure", async () => {
    await expect(runProcess(options({ argv: [join(tempDir, "missing-program")] }))).rejects.toThrow(
      /could not start the process \(ENOENT\)/,
    );
  });

  // These tests prove what happened by its events (exit, signal, a trap's file), never by a clock: a runner that
  // waited for `sleep 300` instead would fail on the test's own timeout (vitest.shared.ts).
  it("kills the whole group at the timeout, a TERM-ignoring grandchild included, and reaps the adopted one", async () => {
    const result = await runProcess(options({ argv: ["sh", "-c", "trap '' TERM; sleep 300 & echo $!; wait"], timeoutSeconds: 1 }));
    expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL", timedOut: true, cancelled: false });
    const grandchild = Number(result.output.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(liveMembers(lastSpawn().pgid)).toEqual([]);
    // Orphaned when sh died, adopted by this (subreaper) process, then reaped by pid: not even a zombie is left.
    expect(processStat(grandchild)).toBeNull();
  });

  it("bounds the output to its tail and says how much was cut", async () => {
    const finite = await runProcess(options({ command: "yes | head -c 100000", maxOutputBytes: 1000 }));
    expect(finite).toMatchObject({ exitCode: 0, outputBytes: 100_000, truncated: true });
    expect(finite.output).toBe(`[output truncated: the first 99000 of 100000 bytes were cut]\n${"y\n".repeat(500)}`);

    const endless = await runProcess(options({ argv: ["yes"], maxOutputBytes: 1000, timeoutSeconds: 1 }));
    expect(endless).toMatchObject({ truncated: true, timedOut: true, signal: "SIGKILL" });
    expect(endless.outputBytes).toBeGreaterThan(1000);
    expect(Buffer.byteLength(endless.output)).toBeLessThanOrEqual(1000 + 100);
    expect(endless.output.endsWith("y\n")).toBe(true);
  });

  it("gives a cancelled group its graceful TERM: a trap can clean up and exit", async () => {
    const controller = new AbortController();
    const ready = join(tempDir, "trap-ready");
    const cleaned = join(tempDir, "trap-cleaned");
    const command = `trap 'echo cleaned > ${cleaned}; exit 0' TERM; touch ${ready}; while :; do sleep 0.1; done`;
    const run = runProcess(options({ command, signal: controller.signal }));
    await abortWhenExists(controller, ready, new CallCancelled("cancelled by the caller"));
    const result = await run;

    // It ended by its own exit 0 from the trap, not by the KILL that follows the grace.
    expect(result).toMatchObject({ exitCode: 0, signal: null, cancelled: true, timedOut: false });
    expect(readFileSync(cleaned, "utf8")).toBe("cleaned\n");
    expect(liveMembers(lastSpawn().pgid)).toEqual([]);
  });

  it("KILLs a cancelled group that outlives its TERM, after it ran on past the TERM", async () => {
    const controller = new AbortController();
    const ready = join(tempDir, "ignore-ready");
    const termed = join(tempDir, "ignore-termed");
    const after = join(tempDir, "ignore-after");
    // The trap notes the TERM and carries on; every turn of the loop after it leaves a mark.
    const script = `trap 'touch ${termed}' TERM; touch ${ready}; while :; do [ -e ${termed} ] && touch ${after}; sleep 0.1; done`;
    const run = runProcess(options({ argv: ["sh", "-c", script], signal: controller.signal }));
    await abortWhenExists(controller, ready, new CallCancelled("cancelled by the caller"));
    const result = await run;

    expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL", cancelled: true, timedOut: false });
    expect(existsSync(termed)).toBe(true);
    expect(existsSync(after)).toBe(true);
    expect(liveMembers(lastSpawn().pgid)).toEqual([]);
  });

  it("KILLs at once when the caller's deadline aborts the call, without a TERM first", async () => {
    const controller = new AbortController();
    const ready = join(tempDir, "deadline-ready");
    const termed = join(tempDir, "deadline-termed");
    const command = `trap 'touch ${termed}; exit 0' TERM; touch ${ready}; while :; do sleep 0.1; done`;
    const run = runProcess(options({ command, signal: controller.signal }));
    await abortWhenExists(controller, ready, new CallDeadline("deadline of 1s reached"));
    const result = await run;

    expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL", timedOut: true, cancelled: false });
    expect(existsSync(termed)).toBe(false);
    expect(liveMembers(lastSpawn().pgid)).toEqual([]);
  });

  it("returns when the child exits even if a background grandchild holds its output open, and stops that grandchild", async () => {
    const result = await runProcess(options({ argv: ["sh", "-c", "sleep 300 & echo $!"] }));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, cancelled: false });
    const sleepPid = Number(result.output.trim());
    expect(sleepPid).toBeGreaterThan(0);
    expect(liveMembers(lastSpawn().pgid)).toEqual([]);
    expect(processStat(sleepPid)).toBeNull();
  });

  it("does not start anything for an already aborted call", async () => {
    const controller = new AbortController();
    controller.abort(new CallCancelled("cancelled by the caller"));
    await expect(runProcess(options({ argv: ["true"], signal: controller.signal }))).rejects.toThrow(CallCancelled);
    expect(spawned).toHaveLength(0);
  });

  it("kills the group and rethrows when onSpawn fails", async () => {
    let info: ProcessRef | undefined;
    const failing = new Error("could not write the record");
    const run = runProcess(
      options({
        argv: ["sh", "-c", "sleep 300 & wait"],
        onSpawn: (spawnInfo) => {
          info = spawnInfo;
          throw failing;
        },
      }),
    );
    await expect(run).rejects.toBe(failing);
    expect(info).toBeDefined();
    expect(liveMembers(info?.pid as number)).toEqual([]);
  });
});
