import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AT_REMOVEDIR, mkdirAt, NativeError, O_DIRECTORY, renameAt, unlinkAt } from "../src/index.js";
import { makeTempDir } from "./helpers.js";

function codeOf(action: () => void): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(NativeError);
    return (error as NativeError).code;
  }
  throw new Error("expected the call to fail");
}

describe("mkdirAt / renameAt / unlinkAt", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dirfd: number;
  const fds: number[] = [];

  beforeEach(() => {
    temp = makeTempDir("dirops");
    dirfd = openSync(temp.dir, constants.O_RDONLY | O_DIRECTORY);
    fds.push(dirfd);
  });

  afterEach(() => {
    for (const fd of fds.splice(0)) closeSync(fd);
    temp.remove();
  });

  const at = (...parts: string[]) => join(temp.dir, ...parts);

  it("mkdirAt creates a directory with the mode, and EEXIST the second time", () => {
    mkdirAt(dirfd, "made", 0o700);
    const stat = statSync(at("made"));
    expect(stat.isDirectory()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(codeOf(() => mkdirAt(dirfd, "made", 0o700))).toBe("EEXIST");
    expect(codeOf(() => mkdirAt(dirfd, "missing/child", 0o700))).toBe("ENOENT");
  });

  it("renameAt replaces the target atomically with the same inode", () => {
    writeFileSync(at("staged.txt"), "new contents");
    writeFileSync(at("target.txt"), "old contents");
    const stagedInode = statSync(at("staged.txt")).ino;

    renameAt(dirfd, "staged.txt", dirfd, "target.txt");

    expect(existsSync(at("staged.txt"))).toBe(false);
    expect(readFileSync(at("target.txt"), "utf8")).toBe("new contents");
    expect(statSync(at("target.txt")).ino).toBe(stagedInode);
  });

  it("renameAt moves between two directory fds", () => {
    mkdirSync(at("from"));
    mkdirSync(at("to"));
    writeFileSync(at("from", "file"), "moving");
    const fromFd = openSync(at("from"), constants.O_RDONLY | O_DIRECTORY);
    const toFd = openSync(at("to"), constants.O_RDONLY | O_DIRECTORY);
    fds.push(fromFd, toFd);

    renameAt(fromFd, "file", toFd, "renamed");

    expect(existsSync(at("from", "file"))).toBe(false);
    expect(readFileSync(at("to", "renamed"), "utf8")).toBe("moving");
  });

  it("renameAt reports ENOENT for a missing source", () => {
    expect(codeOf(() => renameAt(dirfd, "nope", dirfd, "other"))).toBe("ENOENT");
  });

  it("unlinkAt removes files, and directories only with AT_REMOVEDIR", () => {
    writeFileSync(at("file.txt"), "x");
    unlinkAt(dirfd, "file.txt");
    expect(existsSync(at("file.txt"))).toBe(false);
    expect(codeOf(() => unlinkAt(dirfd, "file.txt"))).toBe("ENOENT");

    mkdirSync(at("dir"));
    expect(codeOf(() => unlinkAt(dirfd, "dir"))).toBe("EISDIR");
    writeFileSync(at("dir", "inner"), "x");
    expect(codeOf(() => unlinkAt(dirfd, "dir", AT_REMOVEDIR))).toBe("ENOTEMPTY");
    unlinkAt(dirfd, "dir/inner");
    unlinkAt(dirfd, "dir", AT_REMOVEDIR);
    expect(existsSync(at("dir"))).toBe(false);
  });
});
