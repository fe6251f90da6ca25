import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { NativeError } from "./errors.js";
import { check, cInt, libc } from "./libc.js";
import { supportedArch } from "./platform.js";

// Identity of the process at the other end of a connected Unix socket, as
// recorded by the kernel at connect() time (it cannot be spoofed by the peer).

// Same values on x86_64 and aarch64 (both use asm-generic/socket.h).
const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
const SO_PEERPIDFD = 77;

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

/**
 * The file descriptor behind a connected net.Socket. Node does not expose it
 * publicly, but its libuv handle carries it; reading it does not transfer
 * ownership, so the fd stays valid only while the socket is open.
 */
export function socketFd(socket: Socket): number {
  const handle = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle;
  const fd = handle?.fd;
  if (typeof fd !== "number" || !Number.isInteger(fd) || fd < 0) {
    throw new Error("socketFd: socket has no file descriptor (not connected, already closed, or not fd-backed)");
  }
  return fd;
}

/**
 * The addon this package's build compiled (addon/peercred.c): getsockopt
 * SO_PEERCRED without koffi, whose loading is most of a client command's peer
 * check. It answers the credentials, or the errno when getsockopt failed.
 */
export interface PeerCredAddon {
  peerCredentials(fd: number): PeerCredentials | number;
}

let addon: PeerCredAddon | null | undefined;

/** The built addon, or null when the build had no C compiler or no Node headers to build it. */
export function peerCredAddon(): PeerCredAddon | null {
  supportedArch();
  addon ??= loadAddon();
  return addon;
}

// dist/peercred.node, whether this module runs from dist/ or (under vitest)
// from src/. In an app's bundle this module keeps its own import.meta.url
// (scripts/bundle.mjs), so the addon is found here too: by path, with no
// module resolution, which costs a few milliseconds of a client's start.
const ADDON = new URL("../dist/peercred.node", import.meta.url);

function loadAddon(): PeerCredAddon | null {
  const path = fileURLToPath(ADDON);
  if (!existsSync(path)) return null;
  const module = { exports: {} as PeerCredAddon };
  process.dlopen(module, path);
  return module.exports;
}

/**
 * The peer's pid/uid/gid (getsockopt SO_PEERCRED): through the built addon,
 * else through koffi. `answerer` is for tests that check both (null: koffi).
 */
export function peerCredentials(fd: number, answerer = peerCredAddon()): PeerCredentials {
  cInt("fd", fd);
  if (answerer) return fromAddon(answerer.peerCredentials(fd));
  const { getsockopt, koffi, types } = libc();
  const size = koffi.sizeof(types.ucred);
  const value = Buffer.alloc(size);
  check("getsockopt(SO_PEERCRED)", getsockopt(fd, SOL_SOCKET, SO_PEERCRED, value, lengthOf(size)));
  const cred = koffi.decode(value, types.ucred) as PeerCredentials;
  return { pid: cred.pid, uid: cred.uid, gid: cred.gid };
}

function fromAddon(answer: PeerCredentials | number): PeerCredentials {
  if (typeof answer === "number") throw new NativeError("getsockopt(SO_PEERCRED)", answer);
  return { pid: answer.pid, uid: answer.uid, gid: answer.gid };
}

/**
 * A pidfd for the peer process (getsockopt SO_PEERPIDFD, Linux 6.5+). Unlike
 * the pid from peerCredentials it cannot be recycled for another process.
 * The fd is close-on-exec; the caller owns it and closes it with fs.closeSync.
 */
export function peerPidfd(fd: number): number {
  const { getsockopt } = libc();
  // Typed arrays use native byte order, matching what the kernel writes.
  const value = new Int32Array(1);
  check("getsockopt(SO_PEERPIDFD)", getsockopt(cInt("fd", fd), SOL_SOCKET, SO_PEERPIDFD, value, lengthOf(4)));
  return value[0] as number;
}

/** A socklen_t in/out argument initialised to `size`. */
function lengthOf(size: number): Uint32Array {
  return Uint32Array.of(size);
}
