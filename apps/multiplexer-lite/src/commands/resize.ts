import { type CliApp, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/** tmux `resize-pane -x COLS -y ROWS`; the program in the pane gets SIGWINCH. */
export function resizeCommand(app: CliApp): MuxCommand {
  return {
    name: "resize",
    aliases: ["resize-pane", "resizep"],
    summary: "resize a pane: resize [-t] TARGET -x COLS -y ROWS",
    usage: "resize [-t] TARGET -x COLS -y ROWS",
    management: false,
    target: "pane",
    args: { max: 0 },
    options: { x: { type: "string", short: "x" }, y: { type: "string", short: "y" } },
    async execute(run) {
      const target = run.target as string;
      const cols = Number(run.values.x);
      const rows = Number(run.values.y);
      if (!Number.isInteger(cols) || !Number.isInteger(rows)) throw new UsageError("give -x COLS and -y ROWS as whole numbers");
      const pane = await withMux(app, run, (client) => client.request("pane/resize", { target, cols, rows }));
      if (run.json) run.io.out(JSON.stringify(pane));
      return Exit.ok;
    },
  };
}
