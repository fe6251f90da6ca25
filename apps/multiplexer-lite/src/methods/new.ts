import { requireProjectConfig } from "@venom/runtime";
import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

export const newMethod = (panes: PaneTable) =>
  paneMethod("pane/new", async (params, session) => {
    // Limits a project config lowers (depth, cwd's workspace) apply to new panes: a broken one refuses them.
    requireProjectConfig(session.state);
    return panes.create(params, session.state).info();
  });
