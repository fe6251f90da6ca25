import type { MuxCommand } from "./command.js";
import { expandFormat } from "./format.js";

/**
 * tmux `command-prompt [-I INITIAL] [-p PROMPT] [TEMPLATE]` (prefix :, and prefix , for rename-window): a prompt on
 * the bottom line; Enter runs the text typed, or TEMPLATE with `%%` replaced by it (quoted as inside "…").
 */
export function commandPromptCommand(): MuxCommand {
  return {
    name: "command-prompt",
    summary: "open the command prompt in the attached client (: prompt)",
    usage: "command-prompt [-I INITIAL] [-p PROMPT] [TEMPLATE]   (#W in INITIAL or PROMPT is the pane's name, #D its id)",
    management: false,
    target: "none",
    args: { max: 1, name: "TEMPLATE" },
    options: { initial: { type: "string", short: "I" }, prompt: { type: "string", short: "p" } },
    async prompt(host, run) {
      const [template] = run.args;
      const label = run.values.prompt ?? (template === undefined ? undefined : `(${template.split(/\s/)[0]})`);
      host.commandPrompt(
        label === undefined ? ":" : `${expandFormat(String(label), host.pane)} `,
        expandFormat(String(run.values.initial ?? ""), host.pane),
        (text) => (template === undefined ? text : template.replaceAll("%%", text.replace(/["\\]/g, "\\$&"))),
      );
      return { drew: true };
    },
  };
}
