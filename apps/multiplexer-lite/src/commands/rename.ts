import { type CliApp, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import { CommandError, type MuxCommand } from "./command.js";
import { promptTarget, takeTarget, targetOption } from "./target.js";

/** tmux `rename-window`. */
export function renameCommand(app: CliApp): MuxCommand {
  return {
    name: "rename",
    aliases: ["rename-window", "renamew", "rename-pane"],
    summary: "rename a pane: rename [-t] TARGET NAME",
    usage: "rename [-t] TARGET NAME   (at the : prompt: rename-window [-t TARGET] NAME, the pane shown by default)",
    management: false,
    target: "pane",
    options: targetOption,
    async execute(run) {
      const { target, rest } = takeTarget(run);
      const [name, ...extra] = rest;
      if (!name || extra.length > 0) throw new UsageError("give exactly one new name");
      const pane = await withMux(app, run, (client) => client.request("pane/rename", { target, name }));
      if (run.json) run.io.out(JSON.stringify(pane));
      return Exit.ok;
    },
    async prompt(host, run) {
      const [name, ...extra] = run.positionals;
      if (!name || extra.length > 0) throw new CommandError("usage: rename-window [-t TARGET] NAME");
      const pane = await host.client.request("pane/rename", { target: promptTarget(host, run), name });
      if (host.pane && pane.id === host.pane.id) host.pane.name = pane.name;
      return {};
    },
  };
}
