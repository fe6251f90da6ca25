import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ancestors,
  groupMembers,
  isGone,
  isRunning,
  processStat,
  signalGroup,
  signalProcess,
  verifiedMembers,
  waitUntil,
} from "../src/proc.js";

const children: ChildProcess[] = [];
let tempDir: string;

beforeAll(() => {
  tempDir = mkdtempSync(join(tmpdir(), "venom-proc-"));
});
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));
afterEach(async () => {
  for (const child of children.splice(0)) {
    // Each child leads its own group; kill whatever of it is left.
    for (const member of groupMembers(child.pid as number)) if (!isGone(member)) signalProcess(member, "SIGKILL");
    if (child.exitCode === null && child.signalCode === null) await new Promise((done) => child.once("exit", done));
  }
});

/** Starts a detached (own group) child and returns it with its pid. */
function start(file: string, args: string[]): ChildProcess & { pid: number } {
  const child = spawn(file, args, { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  if (child.pid === undefined) throw new Error(`${file} did not start`);
  return child as ChildProcess & { pid: number };
}

/** The first line the child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((done) => {
    let text = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      if (text.includes("\n")) done(text.split("\n")[0] as string);
    });
  });
}

describe("processStat", () => {
  it("reads this process and agrees with ps", () => {
    const stat = processStat(process.pid);
    const [ppid, pgid, sid] = execFileSync("ps", ["-o", "ppid=,pgid=,sid=", "-p", String(process.pid)], { encoding: "utf8" })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(stat).toEqual({ pid: process.pid, ppid, pgid, sid, state: expect.stringMatching(/^[RS]$/), startTime: expect.any(Number) });
    expect(processStat(process.pid)?.startTime).toBe(stat?.startTime);
  });

  it("parses a command name holding spaces and parentheses by its last ')'", async () => {
    // The kernel's comm is the executable's name (up to 15 bytes). This one
    // would read as state Z with parent 1 if the first ')' were taken as the end.
    const tricky = join(tempDir, "x) Z 1 1 1 (y)");
    copyFileSync("/bin/sleep", tricky);
    execFileSync("chmod", ["755", tricky]);
    const child = start(tricky, ["30"]);
    const stat = processStat(child.pid);
    expect(stat).toMatchObject({ pid: child.pid, ppid: process.pid, pgid: child.pid, sid: child.pid });
    expect(stat?.state).not.toBe("Z");
    expect(stat?.startTime).toBeGreaterThanOrEqual(processStat(process.pid)?.startTime as number);
  });

  it("returns null for processes that do not exist", () => {
    const pidMax = Number(execFileSync("cat", ["/proc/sys/kernel/pid_max"], { encoding: "utf8" }));
    expect(processStat(pidMax)).toBeNull();
    expect(processStat(0)).toBeNull();
    expect(processStat(-1)).toBeNull();
  });
});

describe("ancestors and groupMembers", () => {
  it("lists a grandchild's ancestors up to pid 1, and its group's members", async () => {
    const child = start("sh", ["-c", "sleep 30 & sleep 30 & echo $!; wait"]);
    const sleepPid = Number(await firstLine(child));

    const chain = ancestors(sleepPid);
    expect(chain.slice(0, 2)).toEqual([child.pid, process.pid]);
    expect(chain.at(-1)).toBe(1);
    expect(ancestors(1)).toEqual([]);

    const members = groupMembers(child.pid).map((member) => member.pid);
    expect(members).toHaveLength(3);
    expect(members).toContain(child.pid);
    expect(members).toContain(sleepPid);
    expect(members).not.toContain(process.pid);
  });

  it("lists a group whose only member is a zombie, and none once it is reaped", async () => {
    // setsid puts the background sleep in a group of its own; the exec'd sleep, its parent, never reaps it.
    const parent = start("sh", ["-c", "setsid sleep 0 & echo $!; exec sleep 30"]);
    const zombie = Number(await firstLine(parent));
    expect(await waitUntil(() => processStat(zombie)?.state === "Z", Date.now() + 5_000)).toBe(true);
    expect(groupMembers(zombie).map((member) => [member.pid, member.state])).toEqual([[zombie, "Z"]]);

    // Its parent's end hands it to a reaper, and the group is gone.
    signalProcess({ pid: parent.pid, startTime: processStat(parent.pid)?.startTime as number }, "SIGKILL");
    expect(await waitUntil(() => processStat(zombie) === null, Date.now() + 5_000)).toBe(true);
    expect(groupMembers(zombie)).toEqual([]);
  });
});

describe("signalling by pid and start time", () => {
  it("never signals a process whose start time differs", async () => {
    const child = start("sleep", ["30"]);
    const real = processStat(child.pid)?.startTime as number;
    const stale = { pid: child.pid, startTime: real - 1 };

    expect(isRunning(stale)).toBe(false);
    expect(signalProcess(stale, "SIGKILL")).toBe(false);
    expect(signalGroup(child.pid, stale, "SIGKILL")).toEqual([]);
    expect(verifiedMembers(child.pid, stale)).toEqual([]);
    await new Promise((done) => setTimeout(done, 200));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();

    const current = { pid: child.pid, startTime: real };
    expect(isRunning(current)).toBe(true);
    expect(signalProcess(current, "SIGTERM")).toBe(true);
    await new Promise((done) => child.once("exit", done));
    expect(child.signalCode).toBe("SIGTERM");
    expect(signalProcess(current, "SIGTERM")).toBe(false);
  });

  it("signals every member of a group whose leader matches, and the members of one whose leader has exited", async () => {
    const child = start("sh", ["-c", "sleep 30 & sleep 30 & echo ready; wait"]);
    await firstLine(child);
    const leader = { pid: child.pid, startTime: processStat(child.pid)?.startTime as number };
    const members = verifiedMembers(child.pid, leader).map((member) => member.pid);
    expect(members).toHaveLength(3);

    // Stop only the leader: the sleeps stay in the group, whose leader has now exited.
    expect(signalProcess(leader, "SIGKILL")).toBe(true);
    await new Promise((done) => child.once("exit", done));
    expect(processStat(child.pid)).toBeNull();

    const signalled = signalGroup(child.pid, leader, "SIGKILL");
    expect(signalled.sort()).toEqual(members.filter((pid) => pid !== child.pid).sort());
    expect(await waitUntil(() => verifiedMembers(child.pid, leader).length === 0, Date.now() + 5_000)).toBe(true);
  });
});

describe("waitUntil", () => {
  it("answers at once, at its deadline, or on a later poll; a check that throws fails only its own wait", async () => {
    expect(await waitUntil(() => true, 0)).toBe(true);
    expect(await waitUntil(() => false, Date.now() + 60)).toBe(false);
    let ready = false;
    setTimeout(() => {
      ready = true;
    }, 60);
    const later = waitUntil(() => ready, Date.now() + 5_000);
    const broken = waitUntil(() => {
      if (ready) throw new Error("broken check");
      return false;
    }, Date.now() + 5_000);
    await expect(broken).rejects.toThrow("broken check");
    expect(await later).toBe(true);
  });

  it("polls every waiter in one synchronous run, so that their checks share one scan of /proc", async () => {
    // Numbers synchronous runs: a run ends at the next microtask checkpoint (where groupsNow's snapshot is dropped).
    let run = 0;
    let open = false;
    const runNow = () => {
      if (!open) {
        open = true;
        run++;
        queueMicrotask(() => {
          open = false;
        });
      }
      return run;
    };
    const polls: Record<string, number[]> = { a: [], b: [] };
    const check = (name: string) => () => (polls[name] as number[]).push(runNow()) === 2;
    const a = waitUntil(check("a"), Date.now() + 5_000);
    await Promise.resolve();
    const b = waitUntil(check("b"), Date.now() + 5_000);
    await Promise.all([a, b]);
    // Each was asked at once, in its caller's run; then both were polled in one run.
    expect(polls.a?.[0]).not.toBe(polls.b?.[0]);
    expect(polls.a?.[1]).toBe(polls.b?.[1]);
  });
});
