import { closeSync, readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { peerCredentials, peerPidfd, pidfdExited, socketFd } from "@venom/native";
import { type Markers, parseMarkers } from "@venom/proto";

/** What the server verified about the process on the other end of a socket. */
export interface PeerFacts {
  pid: number;
  uid: number;
  /** Delegation markers found in the peer's own environment at exec time. */
  environ: Markers;
  /**
   * The peer runs under no_new_privs and this daemon does not: it may be a
   * confined process (Venom's launcher always sets it), whatever else it is.
   */
  noNewPrivs: boolean;
}

export type PeerCheck = { ok: true; peer: PeerFacts } | { ok: false; reason: string };

/**
 * Check the peer before any byte is read (conformance/spec/design.md, "Wire protocol"):
 * SO_PEERCRED names its uid and pid; another uid is refused whatever the file
 * modes say. The pid can exit and be reused while we read /proc, so a pidfd
 * taken from the socket (SO_PEERPIDFD) must still be alive after the read, or
 * the evidence may belong to another process and the peer is refused.
 */
export function checkPeer(socket: Socket): PeerCheck {
  const fd = socketFd(socket);
  const cred = peerCredentials(fd);
  if (cred.uid !== process.getuid?.()) return { ok: false, reason: `peer uid ${cred.uid} is not the daemon's uid` };
  const pidfd = peerPidfd(fd);
  try {
    const environ = readVenomEnviron(cred.pid);
    const noNewPrivs = hasNoNewPrivs(cred.pid);
    if (environ === null || noNewPrivs === null || pidfdExited(pidfd)) {
      return { ok: false, reason: "peer process exited before it could be identified" };
    }
    return {
      ok: true,
      peer: { pid: cred.pid, uid: cred.uid, environ: parseMarkers(environ), noNewPrivs: noNewPrivs && !daemonNoNewPrivs() },
    };
  } finally {
    closeSync(pidfd);
  }
}

/**
 * The VENOM_* variables of a process's environment at exec time, or null when it
 * cannot be read (exited, or not ours). Only Venom's own variables are kept, so
 * no other value of the peer's environment (keys, tokens) is ever held. A
 * process that is not dumpable (a Venom daemon, docs/security-model.md
 * "Descriptors") shows none: its environment is closed to us (EACCES), so only
 * what it claims and its ancestry tell.
 */
export function readVenomEnviron(pid: number): Record<string, string> | null {
  let raw: Buffer;
  try {
    raw = readFileSync(`/proc/${pid}/environ`);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EACCES" ? {} : null;
  }
  const env: Record<string, string> = {};
  for (const entry of raw.toString("utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0 && entry.startsWith("VENOM_")) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** Whether the process runs under no_new_privs (`NoNewPrivs:` of /proc/<pid>/status), or null when it cannot be read. */
function hasNoNewPrivs(pid: number): boolean | null {
  try {
    return /^NoNewPrivs:\s*1$/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return null;
  }
}

let selfNoNewPrivs: boolean | undefined;
/** Whether this daemon itself runs under no_new_privs (then every peer may, and it tells nothing). */
function daemonNoNewPrivs(): boolean {
  selfNoNewPrivs ??= hasNoNewPrivs(process.pid) ?? false;
  return selfNoNewPrivs;
}
