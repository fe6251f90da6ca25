import { closeSync } from "node:fs";
import { tryLockExclusive } from "@venom/native";
import { START_TIMEOUT_MS } from "./daemon-start.js";
import { openPrivateAppend } from "./private-files.js";

const POLL_MS = 10;

/**
 * Runs a daemon's look at its socket path, its removal of a stale socket and
 * its listen as one step among the daemons starting in one home. Without it,
 * a daemon that found another's socket bound but not yet listening took it
 * for stale, removed it and served its own, leaving the first one serving
 * nobody (two `start`s at once). The lock file stays; flock is released when
 * its descriptor closes, and by the kernel when a starter dies holding it.
 */
export async function withStartLock<T>(socketPath: string, start: () => Promise<T>): Promise<T> {
  const lockPath = `${socketPath}.lock`;
  const fd = openPrivateAppend(lockPath);
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!tryLockExclusive(fd)) {
      if (Date.now() > deadline) throw new Error(`${lockPath}: another daemon has been starting here for ${START_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return await start();
  } finally {
    closeSync(fd);
  }
}
