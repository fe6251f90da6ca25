import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtEntryUrl, exited, killAndReap } from "./helpers.js";

// Becoming a subreaper is irreversible for a process's lifetime, so it is
// exercised in a throwaway `node` child, never in the vitest worker. The child
// orphans a `sleep` (its `sh` parent exits at once), checks who adopted it,
// then kills and reaps it itself: as its subreaper, only it can.
const CHILD = `
const native = await import(process.env.NATIVE_URL);
const { spawnSync } = await import("node:child_process");
const { readFileSync } = await import("node:fs");
const { createRequire } = await import("node:module");

const before = native.isChildSubreaper();
native.setChildSubreaper();
const after = native.isChildSubreaper();

const sh = spawnSync("sh", ["-c", "sleep 30 >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
const sleepPid = Number(sh.stdout.trim());
const status = readFileSync("/proc/" + sleepPid + "/status", "utf8");
const ppid = Number(/^PPid:\\s+(\\d+)$/m.exec(status)[1]);
console.log(JSON.stringify({ before, after, self: process.pid, shPid: sh.pid, shStatus: sh.status, sleepPid, ppid }));

// Clean up: kill the adopted sleep through a pidfd, then reap it (Node has no
// waitpid for processes it did not spawn, so call libc's directly).
const pidfd = native.pidfdOpen(sleepPid);
native.pidfdSendSignal(pidfd, "SIGKILL");
const koffi = createRequire(process.env.NATIVE_URL)("koffi");
const waitpid = koffi.load("libc.so.6").func("int waitpid(int pid, void *status, int options)");
console.log(JSON.stringify({ reaped: waitpid(sleepPid, null, 0) === sleepPid, exited: native.pidfdExited(pidfd) }));
`;

function isOurSleep(pid: number, parent: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return /^Name:\s+sleep$/m.test(status) && new RegExp(`^PPid:\\s+${parent}$`, "m").test(status);
  } catch {
    return false;
  }
}

interface Adoption {
  before: boolean;
  after: boolean;
  self: number;
  shPid: number;
  shStatus: number;
  sleepPid: number;
  ppid: number;
}

describe("setChildSubreaper", () => {
  let nativeUrl: string;
  let child: ChildProcess | undefined;
  let stdout = "";

  beforeAll(() => {
    nativeUrl = builtEntryUrl();
  });

  afterEach(async () => {
    // Only matters if the child failed before cleaning up after itself.
    const first = stdout.split("\n")[0];
    if (first) {
      const { sleepPid, self } = JSON.parse(first) as Adoption;
      if (isOurSleep(sleepPid, self)) process.kill(sleepPid, "SIGKILL");
    }
    await killAndReap(child);
    child = undefined;
    stdout = "";
  });

  it("makes the calling process adopt its orphaned grandchildren", async () => {
    const proc = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
      env: { ...process.env, NATIVE_URL: nativeUrl },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child = proc;
    proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });

    expect(await exited(proc)).toEqual({ code: 0, signal: null });
    const [adoptionLine = "{}", cleanupLine = "{}"] = stdout.trim().split("\n");
    const adoption = JSON.parse(adoptionLine) as Adoption;
    const cleanup: unknown = JSON.parse(cleanupLine);

    expect(adoption.before).toBe(false);
    expect(adoption.after).toBe(true);
    expect(adoption.self).toBe(proc.pid);
    expect(adoption.shStatus).toBe(0);
    expect(adoption.sleepPid).toBeGreaterThan(0);
    // The sleep's original parent (sh) is gone; the subreaper adopted it.
    expect(adoption.ppid).not.toBe(adoption.shPid);
    expect(adoption.ppid).toBe(proc.pid);

    expect(cleanup).toEqual({ reaped: true, exited: true });
    expect(isOurSleep(adoption.sleepPid, adoption.self)).toBe(false);
  });
});
