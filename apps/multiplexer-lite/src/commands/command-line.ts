import type { CliApp } from "@venom/runtime/cli";
import { promptArgs } from "./args.js";
import { type CommandArgs, CommandError, type CommandHost, type CommandOutcome, type MuxCommand } from "./command.js";
import { findCommand, muxCommands } from "./table.js";

/**
 * Split a command line into the commands of a sequence, as tmux's prompt
 * does: spaces separate words, quotes ('…', "…") and backslashes keep them
 * together, and a bare `;` separates commands (a quoted or escaped one, `\;`,
 * is a word).
 */
export function commandsOf(line: string): string[][] {
  const commands: string[][] = [[]];
  for (const { word, bare } of tokens(line)) {
    if (bare && word === ";") commands.push([]);
    else (commands.at(-1) as string[]).push(word);
  }
  return commands.filter((command) => command.length > 0);
}

/** The words of a line, each saying whether it was typed bare (no quote or backslash in it). */
function tokens(line: string): { word: string; bare: boolean }[] {
  const out: { word: string; bare: boolean }[] = [];
  let word: string | undefined;
  let bare = true;
  let quote: "'" | '"' | undefined;
  const end = () => {
    if (word !== undefined) out.push({ word, bare });
    word = undefined;
    bare = true;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) word = (word ?? "") + line[++i];
      else word = (word ?? "") + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      bare = false;
      word = word ?? "";
    } else if (c === "\\" && i + 1 < line.length) {
      bare = false;
      word = (word ?? "") + line[++i];
    } else if (/\s/.test(c)) end();
    else word = (word ?? "") + c;
  }
  if (quote) throw new CommandError(`unterminated ${quote} quote`);
  end();
  return out;
}

/**
 * Run a command line typed at the `:` prompt: a command of venom-mux's table
 * that an attached client can run, or a sequence of them (`neww -d ; neww`),
 * which the first error ends.
 */
export async function runPromptCommand(host: CommandHost, line: string): Promise<CommandOutcome> {
  const outcome: CommandOutcome = {};
  for (const words of commandsOf(line)) {
    const { drew, message } = await runOne(host, words);
    if (drew) outcome.drew = true;
    if (message) outcome.message = message;
  }
  return outcome;
}

async function runOne(host: CommandHost, words: string[]): Promise<CommandOutcome> {
  const { command, run } = resolveCommand(host.app, muxCommands(host.app), words);
  return (command.prompt as NonNullable<MuxCommand["prompt"]>)(host, run);
}

/** Check a command line as the prompt would before running it (a binding in config.toml): a CommandError says what is wrong. */
export function checkCommandLine(app: CliApp, commands: readonly MuxCommand[], line: string): void {
  const sequence = commandsOf(line);
  if (sequence.length === 0) throw new CommandError("no command");
  for (const words of sequence) resolveCommand(app, commands, words);
}

/** The prompt's command `words` names and its parsed arguments; a CommandError names what is wrong. */
function resolveCommand(
  app: CliApp,
  commands: readonly MuxCommand[],
  [name, ...args]: string[],
): { command: MuxCommand; run: CommandArgs } {
  const command = name === undefined ? undefined : findCommand(commands, name);
  const usage = (c: MuxCommand) => c.usage.split("\n")[0];
  if (!command) {
    const here = commands.filter((c) => c.prompt).map((c) => c.aliases?.find((a) => a.includes("-")) ?? c.name);
    throw new CommandError(`unknown command: ${name} (here: ${here.join(", ")})`);
  }
  if (!command.prompt) throw new CommandError(`${name} runs from a shell: ${app.program} ${usage(command)}`);
  try {
    return { command, run: promptArgs(command, args) };
  } catch (error) {
    throw new CommandError(`${name}: ${(error as Error).message}; usage: ${usage(command)}`);
  }
}
