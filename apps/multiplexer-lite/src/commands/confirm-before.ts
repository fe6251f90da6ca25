import type { MuxCommand } from "./command.js";
import { expandFormat } from "./format.js";

/** tmux `confirm-before [-p PROMPT] COMMAND` (prefix x: kill-pane): `y` runs COMMAND, any other key cancels. */
export function confirmBeforeCommand(): MuxCommand {
  return {
    name: "confirm-before",
    aliases: ["confirm"],
    summary: "ask y/n before running a command in the attached client (: prompt)",
    usage: "confirm-before [-p PROMPT] COMMAND   (#W in PROMPT is the pane's name, #D its id)",
    management: false,
    target: "none",
    args: { min: 1, max: 1, name: "COMMAND" },
    options: { prompt: { type: "string", short: "p" } },
    async prompt(host, run) {
      const [line] = run.args as [string];
      const question = run.values.prompt === undefined ? `Confirm '${line}'? (y/n)` : String(run.values.prompt);
      host.confirm(expandFormat(question, host.pane), line);
      return { drew: true };
    },
  };
}
