import type { PaneInfo } from "@venom/proto";
import { type CliApp, type Command, type CommandRun, UsageError, type VenomClient } from "@venom/runtime/cli";

/** What the `:` prompt's commands may do to the attached client. */
export interface CommandHost {
  readonly app: CliApp;
  readonly client: VenomClient;
  /** The pane this client shows. */
  readonly pane: PaneInfo | undefined;
  /** The size a pane shown here has (the terminal's, less the status line). */
  size(): { cols: number; rows: number };
  /** Attach another pane (by id, name or index) in place of the current one. */
  switchTo(target: string): Promise<void>;
  cycle(direction: 1 | -1): Promise<void>;
  last(): Promise<void>;
  detach(): void;
  /** The current pane is gone: attach the next running one, or detach with [exited]. */
  leave(pane: PaneInfo): Promise<void>;
  /** daemon/stop; the client ends with [server exited] once the daemon is gone. */
  stopServer(): Promise<void>;
  /** Show the running pane at `index`, or say there is none. */
  selectIndex(index: number): Promise<void>;
  /** Open a prompt on the bottom line: `label`, then `initial` to edit; Enter runs what `toLine` makes of the text. */
  commandPrompt(label: string, initial: string, toLine: (text: string) => string): void;
  /** Ask `question` on the bottom line; `y` runs `line`. */
  confirm(question: string, line: string): void;
  /** Open the list of running panes to choose one from. */
  choosePane(): Promise<void>;
  /** Type the prefix key into the pane shown. */
  sendPrefix(): void;
}

/** What a command did: whether it already drew the screen (switched panes, detached), and what to tell the user. */
export interface CommandOutcome {
  drew?: boolean;
  message?: string;
}

export class CommandError extends Error {}

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
