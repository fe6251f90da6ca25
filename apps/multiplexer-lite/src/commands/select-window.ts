import { CommandError, type MuxCommand } from "./command.js";
import { targetOption } from "./target.js";

/** tmux `select-window -t TARGET`: show another pane in this attached client. */
export function selectWindowCommand(): MuxCommand {
  return {
    name: "select-window",
    aliases: ["selectw", "select-pane", "selectp"],
    summary: "show another pane in the attached client (: prompt): select-window -t TARGET",
    usage: "select-window -t TARGET",
    management: false,
    target: "pane",
    options: targetOption,
    async prompt(host, run) {
      const target = run.values.target;
      if (typeof target !== "string" || run.positionals.length > 0) throw new CommandError("usage: select-window -t TARGET");
      // A bare index (the digit keys' binding) is among the running panes, as the status line numbers them.
      if (/^\d+$/.test(target)) await host.selectIndex(Number(target));
      else await host.switchTo(target);
      return { drew: true };
    },
  };
}
