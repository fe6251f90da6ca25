import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** Every pane this session may see, with what its screen and the kernel say now (title, cursor, foreground program, waiting for input). */
export const listMethod = (panes: PaneTable) =>
  paneMethod("pane/list", async (_params, session) => ({
    panes: await Promise.all(panes.visibleTo(session.state).map((p) => p.describe())),
  }));
