import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/** Type into a pane; `enter` adds the Enter key (a carriage return, as a terminal sends it). */
export const sendMethod = (panes: PaneTable) =>
  paneMethod("pane/send", async (params, session) => {
    const data = params.enter ? `${params.data}\r` : params.data;
    panes.resolve(params.target, session.state).write(data);
    return { bytes: Buffer.byteLength(data) };
  });
