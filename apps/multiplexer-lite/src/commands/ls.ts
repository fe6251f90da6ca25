import type { PaneInfo } from "@venom/proto";
import { type CliApp, Exit } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

export function describePane(pane: PaneInfo): string {
  const state = pane.status === "running" ? "running" : `exited ${pane.signal ? `by ${pane.signal}` : pane.exitCode}`;
  const attached = pane.clients > 0 ? ` (${pane.clients} attached)` : "";
  return `${pane.id} ${pane.name}: ${pane.argv.join(" ")} [${pane.cols}x${pane.rows}] ${state}${attached}`;
}

/** tmux `ls`: every pane, one a line. */
export function lsCommand(app: CliApp): MuxCommand {
  return {
    name: "ls",
    aliases: ["list-panes", "lsp", "list-windows", "lsw", "list-sessions"],
    summary: "list panes",
    usage: "ls",
    management: false,
    target: "none",
    args: { max: 0 },
    async execute(run) {
      const { json, io } = run;
      // Printed as text, a pane is what the table knows: the listing does not ask the screen or /proc (--json does).
      const { panes } = await withMux(app, run, (client) => client.request("pane/list", { brief: !json }));
      if (json) io.out(JSON.stringify(panes));
      else for (const pane of panes) io.out(describePane(pane));
      return Exit.ok;
    },
  };
}
