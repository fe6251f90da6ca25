import { resolve } from "node:path";
import { startDaemon } from "../../daemon-start.js";
import { answers } from "../../socket-probe.js";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";

/** Start the daemon in the background; returns once its socket answers. */
export function startCommand(app: CliApp): Command {
  return {
    name: "start",
    summary: "start the daemon in the background and wait until it answers",
    usage: "start [--workspace DIR] [--policy on-risk|always|never]",
    management: true,
    options: { workspace: { type: "string" }, policy: { type: "string" } },
    async execute({ home, values, json, io }) {
      home.ensure();
      const socket = home.socket(app.app);
      if (await answers(socket)) throw new Error(`already running on ${socket}`);
      const workspace = resolve((values.workspace as string | undefined) ?? process.cwd());
      const pid = await startDaemon({
        main: process.argv[1] as string,
        app: app.app,
        home,
        workspace,
        policy: values.policy as string | undefined,
      });
      if (json) io.out(JSON.stringify({ started: true, pid, socket, workspace }));
      else io.out(`${app.program} started (pid ${pid}) on ${socket}, workspace ${workspace}`);
      return Exit.ok;
    },
  };
}
