import { parseMarkers } from "@venom/proto";

/**
 * Is this process inside one of the panes of the daemon `instance`? A client
 * attached there would show the panes within a pane (its own pane: output
 * feeding itself without end); tmux refuses nesting the same way.
 */
export function insideOwnPane(instance: string): boolean {
  return parseMarkers(process.env).parent?.startsWith(`${instance}/`) === true;
}
