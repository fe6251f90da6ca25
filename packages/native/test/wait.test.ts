import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ECHILD, WNOHANG, waitpid } from "../src/index.js";
import { builtEntryUrl, exited, killAndReap } from "./helpers.js";

// Adopting orphans needs PR_SET_CHILD_SUBREAPER, which is irreversible, so the
// reaping runs in a throwaway `node` child (as in subreaper.test.ts). It
// orphans a `sleep 30` and a subshell that exits 3, then waits for each by pid.
const CHILD = `
const native = await import(process.env.NATIVE_URL);
const { spawnSync } = await import("node:child_process");
const { existsSync } = await import("node:fs");
const { setTimeout: sleep } = await import("node:timers/promises");

native.setChildSubreaper();
const sh = spawnSync("sh", ["-c", "sleep 30 >/dev/null 2>&1 & echo $!; (sleep 0.3; exit 3) >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
const [sleepPid, exiterPid] = sh.stdout.trim().split("\\n").map(Number);
console.log(JSON.stringify({ sleepPid, exiterPid }));

async function untilExited(pidfd) {
  while (!native.pidfdExited(pidfd)) await sleep(20);
}
function errnoOf(fn) {
  try { fn(); return null; } catch (error) { return error.errno; }
}

const whileRunning = native.waitpid(sleepPid, native.WNOHANG);
const sleepFd = native.pidfdOpen(sleepPid);
native.pidfdSendSignal(sleepFd, "SIGKILL");
await untilExited(sleepFd);
const killed = native.waitpid(sleepPid, native.WNOHANG);

const exiterFd = native.pidfdOpen(exiterPid);
await untilExited(exiterFd);
const zombieBefore = existsSync("/proc/" + exiterPid);
const exitedResult = native.waitpid(exiterPid);

console.log(JSON.stringify({
  whileRunning,
  killed,
  exited: exitedResult,
  zombieBefore,
  goneAfter: !existsSync("/proc/" + sleepPid) && !existsSync("/proc/" + exiterPid),
  againErrno: errnoOf(() => native.waitpid(sleepPid, native.WNOHANG)),
  notChildErrno: errnoOf(() => native.waitpid(process.ppid, native.WNOHANG)),
}));
`;

function isChildOf(pid: number, parent: number): boolean {
  try {
    return new RegExp(`^PPid:\\s+${parent}$`, "m").test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

describe("waitpid", () => {
  let nativeUrl: string;
  let child: ChildProcess | undefined;
  let stdout = "";

  beforeAll(() => {
    nativeUrl = builtEntryUrl();
  });

  afterEach(async () => {
    // Only matters if the child failed before reaping its orphans.
    const first = stdout.split("\n")[0];
    if (first && child?.pid !== undefined) {
      const { sleepPid } = JSON.parse(first) as { sleepPid: number };
      if (isChildOf(sleepPid, child.pid)) process.kill(sleepPid, "SIGKILL");
    }
    await killAndReap(child);
    child = undefined;
    stdout = "";
  });

  it("refuses pid -1, 0 and process groups before any syscall, and options other than WNOHANG", () => {
    expect(() => waitpid(-1, WNOHANG)).toThrow(TypeError);
    expect(() => waitpid(0, WNOHANG)).toThrow(TypeError);
    expect(() => waitpid(-process.pid, WNOHANG)).toThrow(TypeError);
    expect(() => waitpid(process.pid, 2)).toThrow(TypeError);
  });

  it("reports ECHILD for a process that is not our child", () => {
    expect(() => waitpid(process.ppid, WNOHANG)).toThrow(expect.objectContaining({ errno: ECHILD, syscall: "waitpid" }));
  });

  it("reaps adopted orphans by pid and decodes their exit code or signal", async () => {
    const proc = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
      env: { ...process.env, NATIVE_URL: nativeUrl },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child = proc;
    proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });

    expect(await exited(proc)).toEqual({ code: 0, signal: null });
    const [pidsLine = "{}", resultLine = "{}"] = stdout.trim().split("\n");
    const { sleepPid, exiterPid } = JSON.parse(pidsLine) as { sleepPid: number; exiterPid: number };
    const result: unknown = JSON.parse(resultLine);

    expect(result).toEqual({
      whileRunning: null,
      killed: { pid: sleepPid, status: 9, exitCode: null, signal: "SIGKILL" },
      exited: { pid: exiterPid, status: 3 << 8, exitCode: 3, signal: null },
      zombieBefore: true,
      goneAfter: true,
      againErrno: ECHILD,
      notChildErrno: ECHILD,
    });
  });
});
