import { type CliApp, Exit } from "@venom/runtime/cli";
import { promptTarget } from "./args.js";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/** tmux `kill-pane`: the pane's whole process group ends (HUP and TERM, then KILL after 2 s to what remains). */
export function killCommand(app: CliApp): MuxCommand {
  return {
    name: "kill",
    aliases: ["kill-pane", "killp", "kill-window", "killw"],
    summary: "end a pane and its whole process group (HUP and TERM, KILL after 2 s): kill [-t] TARGET",
    usage: "kill [-t] TARGET   (at the : prompt: kill-pane [-t TARGET], the pane shown by default)",
    management: false,
    target: "pane",
    args: { max: 0 },
    async execute(run) {
      const result = await withMux(app, run, (client) => client.request("pane/kill", { target: run.target as string }));
      if (run.json) run.io.out(JSON.stringify(result));
      return Exit.ok;
    },
    async prompt(host, run) {
      const { pane } = await host.client.request("pane/kill", { target: promptTarget(host, run) });
      if (pane.id !== host.pane?.id) return {};
      await host.leave(pane);
      return { drew: true };
    },
  };
}
