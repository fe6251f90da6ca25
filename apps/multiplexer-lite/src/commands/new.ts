import type { PaneNewParamsSchema } from "@venom/proto";
import { type CliApp, Exit, startIn, UsageError } from "@venom/runtime/cli";
import type { z } from "zod";
import { insideOwnPane } from "../common/nesting.js";
import { withMux } from "./client.js";
import type { CommandArgs, MuxCommand } from "./command.js";

type PaneNewParams = z.input<typeof PaneNewParamsSchema>;

/** tmux `new-session`/`new-window`: a pane running ARGV (default your shell); attaches unless -d or no terminal. */
export function newCommand(app: CliApp): MuxCommand {
  return {
    name: "new",
    aliases: ["new-session", "new-window", "neww"],
    summary: "open a pane: new [-d] [-n NAME] [-c DIR] [-x COLS] [-y ROWS] [--delegated [--agent NAME]] [-- ARGV…]",
    usage:
      "new [-d] [-n NAME] [-c DIR] [-x COLS] [-y ROWS] [--delegated] [--agent NAME] [-- ARGV…]\n\n" +
      "-s NAME (tmux new-session) names the pane as -n does. The size is this terminal's (80x24 without one) unless -x/-y say otherwise. The pane starts in this directory\n" +
      "when it is inside the daemon's workspace (else the workspace root); a relative -c DIR is taken from here.\n" +
      "At the : prompt (new-window) the new pane is shown unless -d. With no daemon running in the home, new starts one\n" +
      "(as venom-mux start does) and says so.",
    management: false,
    target: "none",
    args: { name: "ARGV" },
    options: {
      detached: { type: "boolean", short: "d" },
      name: { type: "string", short: "n" },
      session: { type: "string", short: "s" },
      cwd: { type: "string", short: "c" },
      delegated: { type: "boolean" },
      agent: { type: "string" },
      x: { type: "string", short: "x" },
      y: { type: "string", short: "y" },
    },
    async execute(run) {
      const { home, json, io, values, args } = run;
      const size = { cols: process.stdout.columns ?? 80, rows: process.stdout.rows ?? 24 };
      const terminal = !values.detached && !json && process.stdin.isTTY === true && process.stdout.isTTY === true;
      let nested = false;
      const pane = await withMux(
        app,
        run,
        (client) => {
          // Inside one of this daemon's own panes, attaching would nest panes in themselves: create it detached instead.
          nested = insideOwnPane(client.hello.instance);
          return client.request("pane/new", paneParams({ values, args }, client.hello.workspace, size));
        },
        // As tmux new starts its server.
        { startWith: io },
      );
      if (terminal && !nested) return (await import("../attach/attach.js")).attachToPane(app, home, pane.id);
      if (terminal) io.err(`${app.program}: created ${pane.id} detached: this terminal is one of its panes (switch with prefix n, p or w)`);
      if (json) io.out(JSON.stringify(pane));
      else io.out(`${pane.id} ${pane.name}`);
      return Exit.ok;
    },
    async prompt(host, run) {
      const pane = await host.client.request("pane/new", paneParams(run, host.client.hello.workspace, host.size()));
      if (run.values.detached) return { message: `new pane ${pane.id} ${pane.name}` };
      await host.switchTo(pane.id);
      return { drew: true };
    },
  };
}

/** What `new` asks the daemon for, from the command line, the daemon's workspace and the size of the terminal it was typed in. */
function paneParams(
  { values, args }: Pick<CommandArgs, "values" | "args">,
  workspace: string | null,
  size: { cols: number; rows: number },
): PaneNewParams {
  const name = (values.name ?? values.session) as string | undefined;
  return {
    ...(args.length > 0 ? { argv: args } : {}),
    ...(name ? { name } : {}),
    ...startIn(values.cwd as string | undefined, workspace),
    ...(values.delegated ? { envPolicy: "delegated" as const } : {}),
    ...(values.agent ? { agent: values.agent as string } : {}),
    cols: dimension(values.x as string | undefined, "-x", size.cols),
    rows: dimension(values.y as string | undefined, "-y", size.rows),
  };
}

function dimension(value: string | undefined, flag: string, otherwise: number): number {
  if (value === undefined) return otherwise;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number`);
  return Number(value);
}
