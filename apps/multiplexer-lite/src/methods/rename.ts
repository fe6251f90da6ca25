import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const renameMethod = (panes: PaneTable) =>
  paneMethod("pane/rename", async (params) => {
    const pane = panes.resolve(params.target);
    panes.assertNameFree(params.name, pane);
    pane.name = params.name;
    return pane.info();
  });
