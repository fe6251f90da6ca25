import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, readFileSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { NativeError, pidfdExited, pidfdOpen, pidfdSendSignal } from "../src/index.js";
import { exited, killAndReap, pidOfPidfd } from "./helpers.js";

describe("pidfd", () => {
  const children: ChildProcess[] = [];
  const fds: number[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) await killAndReap(child);
    for (const fd of fds.splice(0)) closeSync(fd);
  });

  function sleeper(): ChildProcess & { pid: number } {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(child);
    if (child.pid === undefined) throw new Error("sleep did not start");
    return child as ChildProcess & { pid: number };
  }

  function open(pid: number): number {
    const fd = pidfdOpen(pid);
    fds.push(fd);
    return fd;
  }

  it("kills a child through its pidfd with SIGKILL", async () => {
    const child = sleeper();
    const pidfd = open(child.pid);
    expect(pidOfPidfd(pidfd)).toBe(child.pid);
    expect(pidfdExited(pidfd)).toBe(false);

    pidfdSendSignal(pidfd, "SIGKILL");

    expect(await exited(child)).toEqual({ code: null, signal: "SIGKILL" });
    expect(pidfdExited(pidfd)).toBe(true);
  });

  it("accepts numeric signals, and signal 0 only probes", async () => {
    const child = sleeper();
    const pidfd = open(child.pid);
    pidfdSendSignal(pidfd, 0);
    expect(pidfdExited(pidfd)).toBe(false);

    pidfdSendSignal(pidfd, osConstants.signals.SIGTERM);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
    expect(pidfdExited(pidfd)).toBe(true);
  });

  it("reports ESRCH after the process was reaped, instead of signalling a reused pid", async () => {
    const child = sleeper();
    const pidfd = open(child.pid);
    child.kill("SIGKILL");
    await exited(child);
    expect(() => pidfdSendSignal(pidfd, "SIGTERM")).toThrow(expect.objectContaining({ code: "ESRCH", syscall: "pidfd_send_signal" }));
  });

  it("reports ESRCH for a pid that cannot exist", () => {
    const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
    expect(() => pidfdOpen(pidMax)).toThrow(expect.objectContaining({ code: "ESRCH", syscall: "pidfd_open" }));
  });

  it("rejects unknown signal names and non-pidfds", () => {
    const pidfd = open(process.pid);
    expect(() => pidfdSendSignal(pidfd, "SIGNOPE" as NodeJS.Signals)).toThrow(TypeError);
    expect(() => pidfdExited(-1)).toThrow(expect.objectContaining({ code: "EBADF", syscall: "poll" }));
    // An fd number far above any open descriptor: poll flags it POLLNVAL.
    expect(() => pidfdExited(999_999)).toThrow(expect.objectContaining({ code: "EBADF", syscall: "poll" }));
    expect(() => pidfdSendSignal(-1, "SIGTERM")).toThrow(NativeError);
  });
});
