import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/**
 * Every pane this session may see, with what its screen and the kernel say now (title, cursor, foreground program,
 * waiting for input); `brief`, only what the table knows: with 200 panes the rest cost a listing some 30 ms.
 */
export const listMethod = (panes: PaneTable) =>
  paneMethod("pane/list", async (params, session) => {
    const visible = panes.visibleTo(session.state);
    return { panes: params?.brief ? visible.map((p) => p.info()) : await Promise.all(visible.map((p) => p.describe())) };
  });
