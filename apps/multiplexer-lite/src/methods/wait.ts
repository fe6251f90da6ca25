import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** Wait until a pane's program exits (or the timeout passes); its status is kept after exit. */
export const waitMethod = (panes: PaneTable) =>
  paneMethod("pane/wait", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      pane.exited().then(() => false),
      new Promise<boolean>((resolve) => {
        if (params.timeoutSeconds) timer = setTimeout(() => resolve(true), params.timeoutSeconds * 1000);
      }),
    ]);
    clearTimeout(timer);
    return { pane: pane.info(), timedOut };
  });
