/** Why a call's signal was aborted: the caller cancelled it, or its deadline passed. */
export class CallCancelled extends Error {
  override readonly name = "CallCancelled";
}
export class CallDeadline extends Error {
  override readonly name = "CallDeadline";
}

/**
 * How one tool call ends early: its caller cancels it (`tools/cancel`, a
 * closed connection) or the dispatcher's deadline passes, whichever comes
 * first. The AbortSignal a tool sees is made only when something asks for it
 * (a tool that listens, an approval that waits): most calls end without
 * anyone asking, and an AbortController for every call was a visible share of
 * the daemon's time in the RPC floor (docs/benchmarks.md).
 */
export class CallCancellation {
  #reason: Error | undefined;
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  /** Aborted with CallCancelled or CallDeadline, whichever came first; already aborted if that was before anyone asked. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** The caller gave up on the call. */
  cancel(): void {
    this.#abort(new CallCancelled("cancelled by the caller"));
  }

  /** The call's deadline passed. */
  expire(seconds: number): void {
    this.#abort(new CallDeadline(`deadline of ${seconds}s reached`));
  }

  #abort(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
