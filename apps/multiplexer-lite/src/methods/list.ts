import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** Every pane, with what its screen and the kernel say now (title, cursor, foreground program, waiting for input). */
export const listMethod = (panes: PaneTable) =>
  paneMethod("pane/list", async () => ({ panes: await Promise.all(panes.list().map((p) => p.describe())) }));
