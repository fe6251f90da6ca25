import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const listMethod = (panes: PaneTable) =>
  paneMethod("pane/list", async (_params, session) => ({ panes: panes.visibleTo(session.state).map((p) => p.info()) }));
