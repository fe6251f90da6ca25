import type { MuxCommand } from "./command.js";

/** tmux `detach-client` (prefix d): the attached client ends; its panes run on. */
export function detachClientCommand(): MuxCommand {
  return {
    name: "detach-client",
    aliases: ["detach"],
    summary: "detach the attached client; its panes run on (: prompt)",
    usage: "detach-client",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      host.detach();
      return { drew: true };
    },
  };
}
