import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { NativeError, O_DIRECTORY, openBeneath } from "@venom/native";
import { ToolFailure } from "@venom/proto";

/**
 * Refuse, before any syscall, what can never be a workspace path: absolute
 * paths, `..` components, NUL bytes and empty names (spec, "Tool rules").
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

const SECRET_NAMES = [
  /^\.env(\..*)?$/,
  /^\.envrc$/,
  /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/,
  /\.(pem|key|p12|pfx|keystore|jks|kdbx|asc|gpg)$/,
  /^\.?(netrc|pgpass|npmrc|pypirc|git-credentials|htpasswd)$/,
  /^credentials(\.json|\.toml|\.ya?ml)?$/,
  /^secrets?(\..*)?$/,
  /^(auth|token|tokens)\.json$/,
];
const SECRET_DIRS = new Set([".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".config/gcloud"]);

/**
 * Lexically secret-like paths (`.env`, private keys, credential files). Reading
 * one needs approval; this is a heuristic for accidents, not a confidentiality
 * boundary (spec, "Tool rules").
 */
export function isSecretLikePath(path: string): boolean {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const name = parts.at(-1) ?? "";
  if (SECRET_NAMES.some((re) => re.test(name))) return true;
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

export interface ReadResult {
  content: Buffer;
  size: number;
  truncated: boolean;
}

/**
 * A session's workspace as an open directory fd. Every open goes through
 * openat2 with RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, so a symlink swapped in
 * concurrently cannot make a path resolve outside it.
 */
export class WorkspaceFs {
  readonly #fd: number;

  constructor(readonly root: string) {
    this.#fd = openSync(root, constants.O_RDONLY | O_DIRECTORY);
  }

  get fd(): number {
    return this.#fd;
  }

  /** Open a path beneath the workspace; the kernel refuses any escape. */
  open(path: string, flags: number, mode?: number): number {
    const rel = checkRelativePath(path);
    try {
      return openBeneath(this.#fd, rel, flags, mode);
    } catch (error) {
      refusal(error, rel);
    }
  }

  /** Read at most `maxBytes` of a regular file. */
  readFile(path: string, maxBytes: number): ReadResult {
    const fd = this.open(path, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
    try {
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
      return { content: buffer.subarray(0, got), size: stat.size, truncated: stat.size > got };
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    closeSync(this.#fd);
  }
}
