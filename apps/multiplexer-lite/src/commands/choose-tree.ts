import type { MuxCommand } from "./command.js";

/** tmux `choose-tree` (prefix w and s): the running panes, one a line, to attach one. */
export function chooseTreeCommand(): MuxCommand {
  return {
    name: "choose-tree",
    aliases: ["choose-window", "choose-session"],
    summary: "choose a pane to show from a list in the attached client (: prompt)",
    usage: "choose-tree",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      await host.choosePane();
      return { drew: true };
    },
  };
}
