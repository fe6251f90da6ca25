import { type CliApp, type CommandRun, Exit, UsageError } from "@venom/runtime/cli";
import { malformedKey, parseKey } from "../common/keys.js";
import { promptTarget } from "./args.js";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/**
 * tmux `send-keys`: arguments that are key names (Enter, C-c, Up, F5, NPage…) are keys, encoded by the daemon for the
 * pane's current modes; other words are typed. -l types everything literally; -p sends it as one paste.
 */
export function sendCommand(app: CliApp): MuxCommand {
  return {
    name: "send",
    aliases: ["send-keys"],
    summary: "type into a pane: send [-t] TARGET TEXT|KEY… [-l] [-p] [--enter]",
    usage:
      "send [-t] TARGET TEXT|KEY… [-l literal] [-p paste] [--enter]\n\n" +
      "Key names are tmux's: Enter Escape Tab BTab Space BSpace Up Down Left Right Home End IC DC PPage NPage\n" +
      "(PageUp PageDown) F1-F12 KP0-KP9 KP/ KP* KP- KP+ KP. KPEnter, with modifiers C- M- S- (C-c, M-Enter, S-Left,\n" +
      "C-M-Up) or ^c. Cursor keys follow the program's application cursor mode, the keypad its keypad mode.\n" +
      "Something that looks like a key name but is none (C-Foo, F13) is an error; -l types it. -p types the text\n" +
      "(arguments joined, as -l joins them) as a paste: newlines become Enter, and it is bracketed if the program asked for it.\n" +
      "At the : prompt (send-keys [-t TARGET] …) it types into the pane shown unless -t.",
    management: false,
    target: "pane",
    args: { name: "TEXT|KEY" },
    options: {
      enter: { type: "boolean" },
      literal: { type: "boolean", short: "l" },
      paste: { type: "boolean", short: "p" },
    },
    async execute(run) {
      const result = await withMux(app, run, (client) =>
        client.request("pane/send", sendParams(run.target as string, run.args, run.values)),
      );
      if (run.json) run.io.out(JSON.stringify(result));
      return Exit.ok;
    },
    async prompt(host, run) {
      await host.client.request("pane/send", sendParams(promptTarget(host, run), run.args, run.values));
      return {};
    },
  };
}

/** What `send` asks the daemon to type: key names checked here, encoded there for the pane's modes. */
function sendParams(target: string, rest: string[], values: CommandRun["values"]) {
  if (rest.length === 0 && !values.enter) throw new UsageError("nothing to send");
  const literal = values.literal === true || values.paste === true;
  if (!literal) {
    const bad = rest.find(malformedKey);
    if (bad !== undefined) throw new UsageError(`unknown key name: ${JSON.stringify(bad)} (send -l types it as text)`);
  }
  const typed = literal
    ? { data: rest.join(""), paste: values.paste === true }
    : { keys: rest.map((arg) => (parseKey(arg) ? { key: arg } : { text: arg })) };
  return { target, ...typed, enter: values.enter === true };
}
