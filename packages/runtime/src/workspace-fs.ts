import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, openSync, readlinkSync, readSync, writeSync } from "node:fs";
import { mkdirAt, NativeError, O_DIRECTORY, O_PATH, openBeneath, renameAt, unlinkAt } from "@venom/native";
import { sha256Hex, ToolFailure } from "@venom/proto";

/**
 * Refuse, before any syscall, what can never be a workspace path: absolute
 * paths, `..` components, NUL bytes and empty names (conformance/spec/security-model.txt, "Tool rules").
 * Everything else is still resolved by the kernel beneath the workspace fd.
 */
export function checkRelativePath(path: string): string {
  if (path.length === 0) throw new ToolFailure("path is empty");
  if (path.length > 4096) throw new ToolFailure("path is longer than 4096 characters");
  if (path.includes("\0")) throw new ToolFailure("path contains a NUL byte");
  if (path.startsWith("/")) throw new ToolFailure("absolute paths are refused: name a path relative to the workspace");
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new ToolFailure("parent traversal (..) is refused: the path must stay inside the workspace");
  if (parts.length === 0) throw new ToolFailure("path names the workspace itself, not a file");
  return parts.join("/");
}

// The one list of secret-like names (venom-echo's read gate, venom-orch's ACP read judgement: docs/security-model.md).
// Matched on the lower-cased name: `.ENV` and `ID_RSA` are the same secrets (and are the same files on a case-insensitive mount).
const SECRET_NAMES = [
  /^\.env/,
  // SSH keys by any name ssh-keygen gives (id_rsa, id_ed25519_sk, id_work); their .pub halves are public.
  /^id_[^.]+$/,
  /\.(pem|key|p12|pfx|keystore|jks|kdbx|asc|gpg)$/,
  /^\.?(netrc|pgpass|npmrc|pypirc|git-credentials|htpasswd)$/,
  // Claude's is `.credentials.json` in its config dir.
  /^\.?credentials(\.json|\.toml|\.ya?ml)?$/,
  /^secrets?(\..*)?$/,
  // Codex's `auth.json` (CODEX_HOME), pi's `auth.json` and `models.json` (its keys), Gemini's `oauth_creds.json`.
  /^(auth|token|tokens|models|oauth_creds)\.json$/,
];
/** Directories whose every file is a credential (`.docker/config.json`, `.kube/config`, …). */
const SECRET_DIRS = new Set([".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".config/gcloud"]);
/** Credential files named by their directory too: gh's tokens are in `~/.config/gh/hosts.yml`. */
const SECRET_FILES = new Set(["gh/hosts.yml"]);

/**
 * Lexically secret-like paths (`.env`, private keys, credential files). Reading
 * one needs approval; this is a heuristic for accidents, not a confidentiality
 * boundary (conformance/spec/security-model.txt, "Tool rules").
 */
export function isSecretLikePath(path: string): boolean {
  const parts = path
    .toLowerCase()
    .split("/")
    .filter((p) => p !== "" && p !== ".");
  const name = parts.at(-1) ?? "";
  if (SECRET_NAMES.some((re) => re.test(name)) || SECRET_FILES.has(parts.slice(-2).join("/"))) return true;
  return parts.slice(0, -1).some((dir, i) => SECRET_DIRS.has(dir) || SECRET_DIRS.has(`${dir}/${parts[i + 1]}`));
}

/** Why the kernel refused, in words for the caller. */
function refusal(error: unknown, path: string): never {
  if (error instanceof NativeError) {
    switch (error.code) {
      case "EXDEV":
        throw new ToolFailure(`${path}: resolves outside the workspace (a symlink or path leaving it is refused)`);
      case "ELOOP":
        throw new ToolFailure(`${path}: refused: a magic link or too many symlinks`);
      case "ENOENT":
        throw new ToolFailure(`${path}: no such file`);
      case "EISDIR":
        throw new ToolFailure(`${path}: is a directory`);
      case "ENOTDIR":
        throw new ToolFailure(`${path}: a parent is not a directory`);
      case "EACCES":
      case "EPERM":
        throw new ToolFailure(`${path}: permission denied`);
    }
  }
  throw error;
}

export interface WriteResult {
  /** The new content is installed under its name (renameat returned). */
  committed: boolean;
  /** The file and its directory were fsynced: the commit survives a crash. Reported apart from commit (RFC 0008). */
  durable: boolean;
  created: boolean;
  bytes: number;
  sha256: string;
}

export interface ReadResult {
  content: Buffer;
  size: number;
  truncated: boolean;
  /** The file actually read, relative to the workspace (differs from the path asked when symlinks led elsewhere). */
  target: string;
}

/**
 * A session's workspace as an open directory fd, opened once at hello: the
 * directory checked (a delegate's inside its parent's) is the one every tool
 * then uses, whatever is renamed or symlinked at its path afterwards. Every
 * open beneath it goes through openat2 with RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS,
 * so a symlink swapped in concurrently cannot make a path resolve outside it.
 */
export class WorkspaceFs {
  /** The open directory, or why it could not be opened. */
  readonly #dir: number | ToolFailure;

  private constructor(
    /** The workspace's canonical path: where the kernel found the directory when it was opened. */
    readonly root: string,
    dir: number | ToolFailure,
  ) {
    this.#dir = dir;
  }

  /**
   * A directory a client named, with symlinks followed; its root is read back
   * from the open fd, never resolved a second time. Throws the open's error.
   */
  static named(path: string): WorkspaceFs {
    const fd = openSync(path, constants.O_RDONLY | O_DIRECTORY);
    try {
      return new WorkspaceFs(readlinkSync(`/proc/self/fd/${fd}`), fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * A canonical workspace (the daemon's own, or a delegation's parent's). One
   * removed, replaced by a file, or replaced by a symlink leading elsewhere
   * under a running daemon still makes a session, keeping the failure: the
   * owner must reach status and stop, and the session's config error
   * (session.ts projectConfig) refuses its tools before any reaches this.
   */
  static at(root: string): WorkspaceFs {
    let dir: WorkspaceFs;
    try {
      dir = WorkspaceFs.named(root);
    } catch (error) {
      return new WorkspaceFs(root, new ToolFailure(`${root}: the workspace cannot be opened (${(error as NodeJS.ErrnoException).code})`));
    }
    if (dir.root === root) return dir;
    dir.close();
    return new WorkspaceFs(
      root,
      new ToolFailure(
        `${root}: the workspace now leads to ${dir.root}: it was replaced after the daemon started; restart the daemon to work there`,
      ),
    );
  }

  get fd(): number {
    if (this.#dir instanceof ToolFailure) throw this.#dir;
    return this.#dir;
  }

  /** Open a path beneath the workspace; the kernel refuses any escape. */
  open(path: string, flags: number, mode?: number): number {
    const rel = checkRelativePath(path);
    try {
      return openBeneath(this.fd, rel, flags, mode);
    } catch (error) {
      refusal(error, rel);
    }
  }

  /**
   * Where `path` really leads, relative to the workspace, when symlinks make it
   * differ from `path` itself; null when it does not exist, leaves, or is itself.
   */
  finalTarget(path: string): string | null {
    let fd: number;
    try {
      fd = this.open(path, O_PATH);
    } catch {
      return null;
    }
    try {
      const target = this.#relative(fd);
      return target === checkRelativePath(path) ? null : target;
    } finally {
      closeSync(fd);
    }
  }

  /** The workspace-relative path of an fd opened beneath it, as the kernel resolved both (the workspace may have moved since it was opened). */
  #relative(fd: number): string | null {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    const root = readlinkSync(`/proc/self/fd/${this.fd}`);
    return real.startsWith(`${root}/`) ? real.slice(root.length + 1) : null;
  }

  /** Read at most `maxBytes` of a regular file; `target` is where it really is, as opened. */
  readFile(path: string, maxBytes: number): ReadResult {
    const fd = this.open(path, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
    try {
      const target = this.#relative(fd) ?? checkRelativePath(path);
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new ToolFailure(`${checkRelativePath(path)}: not a regular file`);
      const want = Math.min(stat.size, maxBytes);
      const buffer = Buffer.alloc(want);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buffer, got, want - got, got);
        if (n === 0) break;
        got += n;
      }
      return { content: buffer.subarray(0, got), size: stat.size, truncated: stat.size > got, target };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Replace or create a file atomically (conformance/spec/security-model.txt, "Tool rules"): missing parent
   * directories are created one level at a time beneath the workspace fd, the
   * content goes to a temp file in the destination directory, is fsynced, and
   * is installed with renameat, so readers see the old content or the new,
   * never a mix. `expectedSha256` detects stale content observed before the
   * write; it does not lock out a concurrent external writer.
   */
  writeFile(
    path: string,
    content: Buffer,
    options: { expectedSha256?: string | undefined; maxBytes: number; maxHashBytes: number },
  ): WriteResult {
    if (content.length > options.maxBytes) {
      throw new ToolFailure(`content is ${content.length} bytes, over the write limit of ${options.maxBytes} (tools.max_write_bytes)`);
    }
    const rel = checkRelativePath(path);
    const slash = rel.lastIndexOf("/");
    const name = rel.slice(slash + 1);
    const dirFd = this.#directory(slash === -1 ? "" : rel.slice(0, slash));
    try {
      const existing = this.#existing(dirFd, rel, name, options.expectedSha256 === undefined ? undefined : options.maxHashBytes);
      if (options.expectedSha256 !== undefined) {
        const expected = options.expectedSha256.toLowerCase();
        if (!existing) throw new ToolFailure(`${rel}: expected sha256 ${expected} but the file does not exist; nothing was written`);
        if (existing.sha256 !== expected) {
          throw new ToolFailure(`${rel}: expected sha256 ${expected} but the file has ${existing.sha256}; nothing was written`);
        }
      }
      const temp = `.${name.slice(0, 200)}.venom-${randomBytes(6).toString("hex")}.tmp`;
      const fd = openBeneath(
        dirFd,
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        // Permission bits only: a replaced setuid, setgid or sticky file never passes its bit to content the agent chose.
        (existing?.mode ?? 0o644) & 0o777,
      );
      let durable = true;
      try {
        for (let done = 0; done < content.length; ) done += writeSync(fd, content, done, content.length - done);
        durable = tryFsync(fd);
      } catch (error) {
        closeSync(fd);
        unlinkAt(dirFd, temp);
        throw error;
      }
      closeSync(fd);
      try {
        renameAt(dirFd, temp, dirFd, name);
      } catch (error) {
        unlinkAt(dirFd, temp);
        refusal(error, rel);
      }
      durable = tryFsync(dirFd) && durable;
      return { committed: true, durable, created: !existing, bytes: content.length, sha256: sha256Hex(content) };
    } finally {
      closeSync(dirFd);
    }
  }

  /** The directory `dir` beneath the workspace, created level by level where missing. */
  #directory(dir: string): number {
    const flags = constants.O_RDONLY | O_DIRECTORY;
    if (dir === "") return openBeneath(this.fd, ".", flags);
    const parts = dir.split("/");
    let parentFd = openBeneath(this.fd, ".", flags);
    try {
      for (let i = 0; i < parts.length; i++) {
        const prefix = parts.slice(0, i + 1).join("/");
        let fd: number;
        try {
          fd = openBeneath(this.fd, prefix, flags);
        } catch (error) {
          if (!(error instanceof NativeError && error.code === "ENOENT")) refusal(error, prefix);
          // mkdirat takes one plain name under a directory already verified beneath the workspace.
          try {
            mkdirAt(parentFd, parts[i] as string, 0o755);
          } catch (mkdirError) {
            if (!(mkdirError instanceof NativeError && mkdirError.code === "EEXIST")) refusal(mkdirError, prefix);
          }
          try {
            fd = openBeneath(this.fd, prefix, flags);
          } catch (reopenError) {
            refusal(reopenError, prefix);
          }
        }
        closeSync(parentFd);
        parentFd = fd;
      }
      return parentFd;
    } catch (error) {
      closeSync(parentFd);
      throw error;
    }
  }

  /**
   * The file being replaced, if any: its mode, and its hash when one is
   * expected, of a file of at most `hashUpTo` bytes (hashed in pieces: the
   * file is never held whole, and a huge one is refused before it is read).
   */
  #existing(dirFd: number, rel: string, name: string, hashUpTo: number | undefined): { sha256?: string; mode: number } | null {
    let fd: number;
    try {
      fd = openBeneath(dirFd, name, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if (error instanceof NativeError && error.code === "ENOENT") return null;
      if (error instanceof NativeError && error.code === "ELOOP") return null; // a symlink: rename replaces the link itself
      refusal(error, rel);
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new ToolFailure(`${rel}: exists and is not a regular file`);
      if (hashUpTo === undefined) return { mode: stat.mode & 0o7777 };
      if (stat.size > hashUpTo) {
        throw new ToolFailure(
          `${rel}: the file is ${stat.size} bytes, over the read limit of ${hashUpTo} (tools.max_read_bytes), so expectedSha256 cannot be checked; nothing was written`,
        );
      }
      const hash = createHash("sha256");
      const buffer = Buffer.alloc(64 * 1024);
      // A file that grows while it is hashed is read no further than the limit.
      for (let seen = 0, n = readSync(fd, buffer); n > 0 && seen <= hashUpTo; seen += n, n = readSync(fd, buffer)) {
        hash.update(buffer.subarray(0, n));
      }
      return { sha256: hash.digest("hex"), mode: stat.mode & 0o7777 };
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    if (!(this.#dir instanceof ToolFailure)) closeSync(this.#dir);
  }
}

function tryFsync(fd: number): boolean {
  try {
    fsyncSync(fd);
    return true;
  } catch {
    return false;
  }
}
