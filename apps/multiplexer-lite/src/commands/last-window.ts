import type { MuxCommand } from "./command.js";

/** tmux `last-window` (prefix l): the pane shown before this one. */
export function lastWindowCommand(): MuxCommand {
  return {
    name: "last-window",
    aliases: ["last"],
    summary: "show the last pane again in the attached client (: prompt)",
    usage: "last-window",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      await host.last();
      return { drew: true };
    },
  };
}
