import type { CliApp } from "@venom/runtime/cli";
import { attachCommand } from "./attach.js";
import { captureCommand } from "./capture.js";
import { chooseTreeCommand } from "./choose-tree.js";
import type { MuxCommand } from "./command.js";
import { commandPromptCommand } from "./command-prompt.js";
import { confirmBeforeCommand } from "./confirm-before.js";
import { muxDaemonCommands } from "./daemon.js";
import { detachClientCommand } from "./detach-client.js";
import { killCommand } from "./kill.js";
import { lastWindowCommand } from "./last-window.js";
import { listKeysCommand } from "./list-keys.js";
import { lsCommand } from "./ls.js";
import { newCommand } from "./new.js";
import { nextWindowCommand } from "./next-window.js";
import { previousWindowCommand } from "./previous-window.js";
import { renameCommand } from "./rename.js";
import { resizeCommand } from "./resize.js";
import { selectWindowCommand } from "./select-window.js";
import { sendCommand } from "./send.js";
import { sendPrefixCommand } from "./send-prefix.js";
import { waitCommand } from "./wait.js";

/** venom-mux's one command table: tmux verbs under tmux's own names and aliases, for the CLI, the `:` prompt and --help. */
export function muxCommands(app: CliApp): MuxCommand[] {
  return [
    newCommand(app),
    lsCommand(app),
    attachCommand(app),
    sendCommand(app),
    captureCommand(app),
    killCommand(app),
    waitCommand(app),
    renameCommand(app),
    resizeCommand(app),
    selectWindowCommand(),
    nextWindowCommand(),
    previousWindowCommand(),
    lastWindowCommand(),
    detachClientCommand(),
    commandPromptCommand(),
    chooseTreeCommand(),
    confirmBeforeCommand(),
    sendPrefixCommand(),
    listKeysCommand(app),
    ...muxDaemonCommands(app),
  ];
}

/** The command `name` (or one of its aliases) names. */
export function findCommand(commands: readonly MuxCommand[], name: string): MuxCommand | undefined {
  return commands.find((c) => c.name === name || c.aliases?.includes(name));
}
