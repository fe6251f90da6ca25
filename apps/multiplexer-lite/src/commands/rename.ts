import { type CliApp, Exit } from "@venom/runtime/cli";
import { promptTarget } from "./args.js";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/** tmux `rename-window`. */
export function renameCommand(app: CliApp): MuxCommand {
  return {
    name: "rename",
    aliases: ["rename-window", "renamew", "rename-pane"],
    summary: "rename a pane: rename [-t] TARGET NAME",
    usage: "rename [-t] TARGET NAME   (at the : prompt: rename-window [-t TARGET] NAME, the pane shown by default)",
    management: false,
    target: "pane",
    args: { min: 1, max: 1, name: "NAME" },
    async execute(run) {
      const [name] = run.args as [string];
      const pane = await withMux(app, run, (client) => client.request("pane/rename", { target: run.target as string, name }));
      if (run.json) run.io.out(JSON.stringify(pane));
      return Exit.ok;
    },
    async prompt(host, run) {
      const [name] = run.args as [string];
      const pane = await host.client.request("pane/rename", { target: promptTarget(host, run), name });
      if (host.pane && pane.id === host.pane.id) host.pane.name = pane.name;
      return {};
    },
  };
}
