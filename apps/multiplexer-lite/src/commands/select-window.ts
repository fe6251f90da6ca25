import { promptTarget } from "./args.js";
import type { MuxCommand } from "./command.js";

/** tmux `select-window -t TARGET`: show another pane in this attached client. */
export function selectWindowCommand(): MuxCommand {
  return {
    name: "select-window",
    aliases: ["selectw", "select-pane", "selectp"],
    summary: "show another pane in the attached client (: prompt): select-window -t TARGET",
    usage: "select-window -t TARGET",
    management: false,
    target: "pane",
    args: { max: 0 },
    async prompt(host, run) {
      const target = promptTarget(host, run);
      // A bare index (the digit keys' binding) is among the running panes, as the status line numbers them.
      if (/^\d+$/.test(target)) await host.selectIndex(Number(target));
      else await host.switchTo(target);
      return { drew: true };
    },
  };
}
