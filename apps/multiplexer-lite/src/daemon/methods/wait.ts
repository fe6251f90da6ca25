import type { Pane } from "../pane.js";
import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

type Reason = "exit" | "quiet" | "output" | "timeout";

/**
 * Wait until a pane's program exits (its status is kept after exit), or, when
 * asked, until the pane goes quiet for `quietMs` or prints again (`output`,
 * at once if it printed past `since` already); never longer than the timeout.
 */
export const waitMethod = (panes: PaneTable) =>
  paneMethod("pane/wait", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    const timers: NodeJS.Timeout[] = [];
    let stopWaitingForOutput: () => void = () => undefined;
    const after = (ms: number, reason: Reason) =>
      new Promise<Reason>((resolve) => {
        timers.push(setTimeout(() => resolve(reason), ms));
      });
    const waits: Promise<Reason>[] = [pane.exited().then(() => "exit" as const)];
    if (params.timeoutSeconds) waits.push(after(params.timeoutSeconds * 1000, "timeout"));
    if (params.output) {
      waits.push(
        params.since !== undefined && pane.printed() > params.since
          ? Promise.resolve("output")
          : new Promise((resolve) => {
              stopWaitingForOutput = pane.onNextOutput(() => resolve("output"));
            }),
      );
    }
    if (params.quietMs) waits.push(quiet(pane, params.quietMs, timers));
    const reason = await Promise.race(waits);
    for (const timer of timers) clearTimeout(timer);
    stopWaitingForOutput();
    return { pane: pane.info(), timedOut: reason === "timeout", reason };
  });

/** Resolves once the pane has printed nothing for `ms`: checked when the quiet time it had would be up. */
function quiet(pane: Pane, ms: number, timers: NodeJS.Timeout[]): Promise<"quiet"> {
  return new Promise((resolve) => {
    const check = () => {
      const left = ms - pane.quietMs();
      if (left <= 0) resolve("quiet");
      else timers.push(setTimeout(check, left));
    };
    check();
  });
}
