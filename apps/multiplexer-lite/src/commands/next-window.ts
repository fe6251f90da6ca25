import type { MuxCommand } from "./command.js";

/** tmux `next-window` (prefix n): the next running pane, wrapping around. */
export function nextWindowCommand(): MuxCommand {
  return {
    name: "next-window",
    aliases: ["next"],
    summary: "show the next running pane in the attached client (: prompt)",
    usage: "next-window",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      await host.cycle(1);
      return { drew: true };
    },
  };
}
