import { type CliApp, type Command, type CommandRun, connectCli, parseCommandArgs, UsageError, type VenomHome } from "@venom/runtime/cli";
import { type CommandArgs, CommandError, type CommandHost, type MuxCommand } from "./command.js";

const targetOption = { target: { type: "string", short: "t" } } as const;

/** A command's flags: its own, and -t TARGET when it acts on a pane. */
export function commandOptions(command: MuxCommand): NonNullable<MuxCommand["options"]> {
  return command.target === "pane" ? { ...targetOption, ...command.options } : (command.options ?? {});
}

/**
 * What a command's declaration (target, args) makes of its parsed command line, from a shell and at the `:` prompt
 * alike: the pane it names (-t TARGET; from a shell, else its first argument, as tmux accepts both habits) and its own
 * arguments, as many as it declares. A wrong count is the same UsageError in both places.
 */
export function commandArgs(
  command: MuxCommand,
  { values, positionals }: Pick<CommandRun, "values" | "positionals">,
  where: "shell" | "prompt",
): CommandArgs {
  let target = typeof values.target === "string" ? values.target : undefined;
  let args = positionals;
  if (command.target === "pane" && target === undefined && where === "shell") {
    [target, ...args] = positionals;
    if (target === undefined && !command.targetOptional) {
      throw new UsageError("name a pane: -t TARGET (an id like %3, a name, or an index)");
    }
  }
  const { min = 0, max = Number.POSITIVE_INFINITY, name = "ARGUMENT" } = command.args;
  if (args.length < min) throw new UsageError(`missing ${name}`);
  if (args.length > max) throw new UsageError(`unexpected argument: ${args[max]}`);
  return { values, target, args };
}

/** The pane a command at the `:` prompt acts on, as tmux: the one -t names, else the pane shown. */
export function promptTarget(host: CommandHost, run: CommandArgs): string {
  if (run.target !== undefined) return run.target;
  if (!host.pane) throw new CommandError("no pane is attached");
  return host.pane.id;
}

/**
 * The CLI's view of a command: the runtime parses its flags (commandOptions), its declaration reads the rest
 * (commandArgs) as the prompt's does; one that only an attached client can run says where to run it.
 */
export function cliCommand(app: CliApp, command: MuxCommand): Command {
  const { execute } = command;
  const namesPane = (at: { flag: string } | { argument: number }) =>
    command.target === "pane" && ("flag" in at ? at.flag === "target" : at.argument === 0);
  return {
    ...command,
    options: commandOptions(command),
    complete: async (home, at) => (namesPane(at) ? paneNames(app, home) : []),
    async execute(run) {
      const args = commandArgs(command, run, "shell");
      if (!execute) throw new UsageError(`works in an attached client only: ${app.program} attach, then the prefix and :`);
      return execute({ ...run, ...args });
    },
  };
}

/** The running daemon's panes, by id and by name, for the shell's TAB; none when it is not running. */
async function paneNames(app: CliApp, home: VenomHome): Promise<string[]> {
  const client = await connectCli(app, home).catch(() => undefined);
  try {
    const { panes } = client ? await client.request("pane/list", { brief: true }) : { panes: [] };
    return panes.flatMap((pane) => [pane.id, pane.name]);
  } finally {
    client?.close();
  }
}

/** A command line typed at the `:` prompt, read as the CLI reads it: the same flags, counts and errors. */
export function promptArgs(command: MuxCommand, argv: readonly string[]): CommandArgs {
  return commandArgs(command, parseCommandArgs(argv, commandOptions(command)), "prompt");
}
