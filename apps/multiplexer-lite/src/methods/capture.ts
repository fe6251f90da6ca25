import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** tmux `capture-pane -p` over the pane's screen model. */
export const captureMethod = (panes: PaneTable) =>
  paneMethod("pane/capture", async (params, session) => ({ text: await panes.resolve(params.target, session.state).capture(params) }));
