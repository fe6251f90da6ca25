import type { MuxCommand } from "./command.js";

/** tmux `previous-window` (prefix p): the previous running pane, wrapping around. */
export function previousWindowCommand(): MuxCommand {
  return {
    name: "previous-window",
    aliases: ["prev"],
    summary: "show the previous running pane in the attached client (: prompt)",
    usage: "previous-window",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      await host.cycle(-1);
      return { drew: true };
    },
  };
}
