/**
 * Resolve with `promise`, or reject with the signal's reason as soon as
 * `signal` aborts: every await of a job goes through this, so a cancel, a
 * timeout or the daemon's stop ends it whatever the other side never answers
 * (docs/venom-orch.md, "ACP agents").
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
