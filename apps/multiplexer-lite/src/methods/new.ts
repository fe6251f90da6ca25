import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const newMethod = (panes: PaneTable) =>
  paneMethod("pane/new", async (params, session) => panes.create(params, session.state).info());
