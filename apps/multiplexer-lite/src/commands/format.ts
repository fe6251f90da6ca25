import type { PaneInfo } from "@venom/proto";

/**
 * tmux's formats, the few a binding's prompt needs: `#W` the pane's name, `#D` its id, `##` a `#`. Expanded in the
 * text a prompt shows (command-prompt -I, confirm-before -p), never in a command line, which names panes with -t.
 */
export function expandFormat(text: string, pane: PaneInfo | undefined): string {
  return text.replace(/#([WD#])/g, (_, name: string) => {
    if (name === "#") return "#";
    return (name === "W" ? pane?.name : pane?.id) ?? "";
  });
}
