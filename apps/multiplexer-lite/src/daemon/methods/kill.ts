import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** End a pane's whole process group (HUP and TERM, KILL after 2 s, through pidfds) and remove it. */
export const killMethod = (panes: PaneTable) =>
  paneMethod("pane/kill", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    await panes.kill(pane);
    return { killed: true, pane: pane.info() };
  });
