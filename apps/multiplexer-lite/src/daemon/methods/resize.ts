import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** Resize a pane: the screen model and the pty (the program gets SIGWINCH). */
export const resizeMethod = (panes: PaneTable) =>
  paneMethod("pane/resize", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    panes.resize(pane, params.cols, params.rows);
    return pane.info();
  });
