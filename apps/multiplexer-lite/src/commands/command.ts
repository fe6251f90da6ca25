import { type CliApp, type Command, type CommandRun, UsageError } from "@venom/runtime/cli";
import type { CommandHost, CommandOutcome } from "../attach/prompt-commands.js";

/** A command line typed at the `:` prompt, parsed with the command's own options. */
export interface PromptRun {
  values: CommandRun["values"];
  positionals: string[];
}

/**
 * One venom-mux command, declared once (tmux's cmd-*.c): its name, tmux's names
 * for it, its flags and what it acts on serve the CLI, the attached client's `:`
 * prompt and --help alike.
 */
export interface MuxCommand extends Omit<Command, "execute"> {
  /** What the command acts on: one pane (`-t TARGET`, else the first argument; at the prompt, else the pane shown), or none. */
  target: "pane" | "none";
  /** Run from a shell; absent for what only an attached client can do (next-window, detach-client…). */
  execute?: Command["execute"];
  /** Run at the `:` prompt of an attached client; absent for what needs a shell of its own (capture, wait…). */
  prompt?(host: CommandHost, run: PromptRun): Promise<CommandOutcome>;
}

/** The CLI's view of a command: one that only an attached client can run says where to run it. */
export function cliCommand(app: CliApp, command: MuxCommand): Command {
  const { execute } = command;
  return {
    ...command,
    async execute(run) {
      if (execute) return execute(run);
      throw new UsageError(`works in an attached client only: ${app.program} attach, then the prefix and :`);
    },
  };
}
