import { constants as osConstants } from "node:os";
import { describe, expect, it } from "vitest";
import { assertSupported, errnoName, mkdirAt, NativeError, UnsupportedPlatformError } from "../src/index.js";
import { SYSCALL_NUMBERS } from "../src/syscalls.js";

describe("assertSupported", () => {
  it("rejects macOS, naming the platform and arch", () => {
    expect(() => assertSupported("darwin", "arm64")).toThrow(UnsupportedPlatformError);
    expect(() => assertSupported("darwin", "arm64")).toThrow(/"darwin".*"arm64"/);
  });

  it("rejects Linux on an arch whose ABI is not known (ia32)", () => {
    let caught: unknown;
    try {
      assertSupported("linux", "ia32");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsupportedPlatformError);
    expect(caught).toMatchObject({ platform: "linux", arch: "ia32" });
    expect((caught as Error).message).toContain("ia32");
  });

  it("accepts Linux on x64 and arm64, including this machine", () => {
    expect(() => assertSupported("linux", "x64")).not.toThrow();
    expect(() => assertSupported("linux", "arm64")).not.toThrow();
    expect(() => assertSupported(process.platform, process.arch)).not.toThrow();
  });

  it("has a syscall table for every supported arch", () => {
    // Numbers from 424 up are the same on every arch (include/uapi/asm-generic/unistd.h).
    for (const arch of ["x64", "arm64"] as const) {
      expect(Object.entries(SYSCALL_NUMBERS[arch]).sort(([, a], [, b]) => a - b)).toEqual([
        ["pidfd_send_signal", 424],
        ["pidfd_open", 434],
        ["close_range", 436],
        ["openat2", 437],
        ["landlock_create_ruleset", 444],
        ["landlock_add_rule", 445],
        ["landlock_restrict_self", 446],
      ]);
    }
  });
});

describe("NativeError", () => {
  it("uses the same errno numbering as this kernel/Node build", () => {
    const names = [
      "EPERM",
      "ENOENT",
      "ESRCH",
      "EINTR",
      "EIO",
      "EBADF",
      "EAGAIN",
      "ENOMEM",
      "EACCES",
      "EEXIST",
      "EXDEV",
      "ENOTDIR",
      "EISDIR",
      "EINVAL",
      "ENOSPC",
      "ELOOP",
      "ENAMETOOLONG",
      "ENOTEMPTY",
      "ENOSYS",
      "EOPNOTSUPP",
      "ENOTSOCK",
    ];
    const table = osConstants.errno as Record<string, number>;
    for (const name of names) {
      expect(errnoName(table[name] as number)).toBe(name);
    }
    expect(errnoName(4095)).toBe("E4095");
  });

  it("comes from a real failing call with code, errno and syscall, and no path in the message", () => {
    let caught: unknown;
    try {
      mkdirAt(-1, "secret-directory-name", 0o700);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(NativeError);
    const error = caught as NativeError;
    expect(error).toMatchObject({ code: "EBADF", errno: osConstants.errno.EBADF, syscall: "mkdirat" });
    expect(error.message).toBe("mkdirat failed: EBADF (bad file descriptor)");
    expect(error.message).not.toContain("secret");
  });
});
