import { type CommandRun, UsageError } from "@venom/runtime/cli";
import { CommandError, type CommandHost, type PromptRun } from "./command.js";

/** The pane a command names: `-t TARGET`, or the first positional (tmux accepts both habits here). */
export function takeTarget(run: CommandRun): { target: string; rest: string[] } {
  const flag = run.values.target as string | undefined;
  if (flag !== undefined) return { target: flag, rest: run.positionals };
  const [target, ...rest] = run.positionals;
  if (target === undefined) throw new UsageError("name a pane: -t TARGET (an id like %3, a name, or an index)");
  return { target, rest };
}

export const targetOption = { target: { type: "string", short: "t" } } as const;

/** At the `:` prompt, as tmux: `-t TARGET`, else the pane shown; the arguments are all the command's own. */
export function promptTarget(host: CommandHost, run: PromptRun): string {
  const flag = run.values.target;
  if (typeof flag === "string") return flag;
  if (!host.pane) throw new CommandError("no pane is attached");
  return host.pane.id;
}
