import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const renameMethod = (panes: PaneTable) =>
  paneMethod("pane/rename", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    panes.assertNameFree(params.name, pane);
    pane.name = params.name;
    return pane.info();
  });
