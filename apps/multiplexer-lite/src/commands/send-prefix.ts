import type { MuxCommand } from "./command.js";

/** tmux `send-prefix` (the prefix typed twice): the prefix key itself goes to the pane. */
export function sendPrefixCommand(): MuxCommand {
  return {
    name: "send-prefix",
    summary: "type the prefix key into the pane shown in the attached client (the prefix typed twice)",
    usage: "send-prefix",
    management: false,
    target: "none",
    args: { max: 0 },
    async prompt(host) {
      host.sendPrefix();
      return {};
    },
  };
}
