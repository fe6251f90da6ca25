import type { Pane } from "./pane.js";

/** What one client session of venom-mux holds. */
export interface MuxContext {
  /** The panes it is attached to, by attachment id. */
  attachments: Map<string, Pane>;
  /** Panes created with lifetime "connection": they end when this session's connection closes. */
  bound: Set<Pane>;
  /** Pipe panes it created: their stdin and stdout are this session's alone. */
  pipes: Set<Pane>;
}
