import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const listMethod = (panes: PaneTable) => paneMethod("pane/list", async () => ({ panes: panes.list().map((p) => p.info()) }));
