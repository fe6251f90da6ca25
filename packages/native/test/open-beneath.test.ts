import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NativeError, O_CLOEXEC, O_DIRECTORY, O_PATH, openBeneath } from "../src/index.js";
import { fdFlags, makeTempDir } from "./helpers.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;

describe("openBeneath", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dirfd: number;
  const fds: number[] = [];

  beforeEach(() => {
    temp = makeTempDir("beneath");
    mkdirSync(join(temp.dir, "a"));
    writeFileSync(join(temp.dir, "a", "b.txt"), "inside content");
    dirfd = openSync(temp.dir, O_RDONLY | O_DIRECTORY);
    fds.push(dirfd);
  });

  afterEach(() => {
    for (const fd of fds.splice(0)) closeSync(fd);
    temp.remove();
  });

  function open(path: string, flags = O_RDONLY, mode?: number): number {
    const fd = openBeneath(dirfd, path, flags, mode);
    fds.push(fd);
    return fd;
  }

  function openError(path: string, from = dirfd): NativeError {
    try {
      fds.push(openBeneath(from, path, O_RDONLY));
    } catch (error) {
      expect(error).toBeInstanceOf(NativeError);
      return error as NativeError;
    }
    throw new Error(`opening ${path} unexpectedly succeeded`);
  }

  it("opens a nested file and reads it, with O_CLOEXEC added", () => {
    const fd = open("a/b.txt");
    expect(readFileSync(fd, "utf8")).toBe("inside content");
    expect(fdFlags(fd) & O_CLOEXEC).toBe(O_CLOEXEC);
  });

  it("refuses '..' with EXDEV, without a path in the message", () => {
    const error = openError("../x");
    expect(error).toMatchObject({ code: "EXDEV", syscall: "openat2" });
    expect(error.message).toBe("openat2 failed: EXDEV (cross-device link / escapes beneath)");
  });

  it("refuses '..' that would climb out even after descending", () => {
    expect(openError("a/../../x").code).toBe("EXDEV");
  });

  it("refuses an absolute path argument", () => {
    expect(openError("/etc/passwd").code).toBe("EXDEV");
  });

  it("refuses an absolute symlink to /etc/passwd", () => {
    symlinkSync("/etc/passwd", join(temp.dir, "abs-link"));
    expect(openError("abs-link").code).toBe("EXDEV");
  });

  it("refuses a relative symlink escaping with ../../", () => {
    symlinkSync("../../etc/passwd", join(temp.dir, "a", "rel-link"));
    expect(openError("a/rel-link").code).toBe("EXDEV");
  });

  it("follows a relative symlink that stays inside", () => {
    symlinkSync("a/b.txt", join(temp.dir, "inner-link"));
    expect(readFileSync(open("inner-link"), "utf8")).toBe("inside content");
  });

  it("refuses a symlink to /proc/self/root/etc/passwd", () => {
    symlinkSync("/proc/self/root/etc/passwd", join(temp.dir, "proc-link"));
    expect(openError("proc-link").code).toBe("EXDEV");
  });

  it("refuses to traverse a /proc magic link even when it is beneath the dirfd (ELOOP)", () => {
    // /proc/self/root is a magic link; only RESOLVE_NO_MAGICLINKS stops it.
    const procSelf = openSync("/proc/self", O_RDONLY | O_DIRECTORY);
    fds.push(procSelf);
    expect(openError("root/etc/passwd", procSelf).code).toBe("ELOOP");
  });

  it("reports ENOENT for a missing file", () => {
    expect(openError("a/missing.txt").code).toBe("ENOENT");
  });

  it("creates files with the given mode, and honours O_EXCL", () => {
    const fd = open("a/new.txt", O_WRONLY | O_CREAT | O_EXCL, 0o600);
    writeFileSync(fd, "created");
    expect(readFileSync(join(temp.dir, "a", "new.txt"), "utf8")).toBe("created");
    expect(statSync(join(temp.dir, "a", "new.txt")).mode & 0o777).toBe(0o600);
    expect(() => openBeneath(dirfd, "a/new.txt", O_WRONLY | O_CREAT | O_EXCL, 0o600)).toThrow(expect.objectContaining({ code: "EEXIST" }));
  });

  it("ignores a mode without O_CREAT, like fs.openSync", () => {
    expect(readFileSync(open("a/b.txt", O_RDONLY, 0o644), "utf8")).toBe("inside content");
  });

  it("gives an O_PATH directory fd usable as the next dirfd", () => {
    const sub = open("a", O_PATH | O_DIRECTORY);
    expect(fstatSync(sub).isDirectory()).toBe(true);
    const fd = openBeneath(sub, "b.txt", O_RDONLY);
    fds.push(fd);
    expect(readFileSync(fd, "utf8")).toBe("inside content");
    expect(openError("../a/b.txt", sub).code).toBe("EXDEV");
  });

  it("rejects a path with an embedded NUL instead of truncating it", () => {
    expect(() => openBeneath(dirfd, "a/b.txt\0../../etc/passwd", O_RDONLY)).toThrow(TypeError);
  });
});
