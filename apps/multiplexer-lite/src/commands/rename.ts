import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import { takeTarget, targetOption } from "./target.js";

export function renameCommand(app: CliApp): Command {
  return {
    name: "rename",
    aliases: ["rename-window", "renamew"],
    summary: "rename a pane: rename [-t] TARGET NAME",
    usage: "rename [-t] TARGET NAME",
    management: false,
    options: targetOption,
    async execute(run) {
      const { target, rest } = takeTarget(run);
      const [name, ...extra] = rest;
      if (!name || extra.length > 0) throw new UsageError("give exactly one new name");
      const pane = await withMux(app, run.home, (client) => client.request("pane/rename", { target, name }));
      if (run.json) run.io.out(JSON.stringify(pane));
      return Exit.ok;
    },
  };
}
