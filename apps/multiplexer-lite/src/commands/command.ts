import type { PaneInfo } from "@venom/proto";
import type { CliApp, Command, CommandRun, ProgramExit, VenomClient } from "@venom/runtime/cli";

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

/** A command's command line as its declaration reads it (args.ts), the same from a shell and at the `:` prompt. */
export interface CommandArgs {
  values: CommandRun["values"];
  /** The pane -t names (from a shell, else the first argument); undefined when none is named. */
  target: string | undefined;
  /** Its own arguments, as many as `args` allows. */
  args: string[];
}

/** A command run from a shell: the CLI's run, read by the declaration. */
export type ShellRun = CommandRun & CommandArgs;

/**
 * One venom-mux command, declared once (tmux's cmd-*.c): its name, tmux's names
 * for it, its flags and what it acts on serve the CLI, the attached client's `:`
 * prompt and --help alike.
 */
export interface MuxCommand extends Omit<Command, "execute"> {
  /**
   * What the command acts on: one pane (-t TARGET, which it need not list in `options`; from a shell, else the first
   * argument; at the prompt, else the pane shown), or none.
   */
  target: "pane" | "none";
  /** From a shell, the pane may go unnamed (attach: the newest). */
  targetOptional?: boolean;
  /**
   * Its own arguments beside the flags and the target (tmux's args_parse bounds): at least `min` (0), at most `max`
   * (unbounded), called `name` in errors. Both the CLI and the prompt check them (args.ts, commandArgs).
   */
  args: { min?: number; max?: number; name?: string };
  /** Run from a shell; absent for what only an attached client can do (next-window, detach-client…). */
  execute?(run: ShellRun): Promise<number | ProgramExit>;
  /** Run at the `:` prompt of an attached client; absent for what needs a shell of its own (capture, wait…). */
  prompt?(host: CommandHost, run: CommandArgs): Promise<CommandOutcome>;
}
