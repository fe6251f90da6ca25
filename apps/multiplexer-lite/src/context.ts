import type { Pane } from "./pane.js";

/** What one client session of venom-mux holds: the panes it is attached to, by attachment id. */
export interface MuxContext {
  attachments: Map<string, Pane>;
}
