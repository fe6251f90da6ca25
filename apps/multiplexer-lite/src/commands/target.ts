import { type CommandRun, UsageError } from "@venom/runtime/cli";

/** The pane a command names: `-t TARGET`, or the first positional (tmux accepts both habits here). */
export function takeTarget(run: CommandRun): { target: string; rest: string[] } {
  const flag = run.values.target as string | undefined;
  if (flag !== undefined) return { target: flag, rest: run.positionals };
  const [target, ...rest] = run.positionals;
  if (target === undefined) throw new UsageError("name a pane: -t TARGET (an id like %3, a name, or an index)");
  return { target, rest };
}

export const targetOption = { target: { type: "string", short: "t" } } as const;
