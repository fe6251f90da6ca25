import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** tmux `capture-pane -p` over the pane's screen model, with how much of the pane's output it shows. */
export const captureMethod = (panes: PaneTable) =>
  paneMethod("pane/capture", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    // Taken before the capture, which flushes what was read so far to the model: the text shows at least this much.
    const printed = pane.printed();
    return { text: await pane.capture(params), printed };
  });
