import { resolve } from "node:path";
import { startDaemon } from "../../daemon-start.js";
import { servingPid } from "../../socket-probe.js";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";
import { workspaceHere } from "../start-dir.js";

/** Start the daemon in the background; returns once its socket answers. */
export function startCommand(app: CliApp): Command {
  return {
    name: "start",
    summary: "start the daemon in the background and wait until it answers",
    usage:
      "start [--workspace DIR] [--policy on-risk|always|never]\n\n" +
      "The workspace is DIR, else the git repository holding this directory, else this directory.",
    management: true,
    options: { workspace: { type: "string" }, policy: { type: "string" } },
    async execute({ home, values, json, io }) {
      home.ensure();
      const socket = home.socket(app.app);
      const serving = await servingPid(socket);
      if (serving !== null) throw new Error(`already running on ${socket} (pid ${serving})`);
      const workspace = values.workspace === undefined ? workspaceHere() : resolve(values.workspace as string);
      const { pid, started } = await startDaemon({
        main: process.argv[1] as string,
        app: app.app,
        home,
        workspace,
        policy: values.policy as string | undefined,
      });
      // Two starts at once: the one whose daemon lost the socket says who serves it.
      if (!started) throw new Error(`already running on ${socket} (pid ${pid})`);
      if (json) io.out(JSON.stringify({ started: true, pid, socket, workspace }));
      else io.out(`${app.program} started (pid ${pid}) on ${socket}, workspace ${workspace}`);
      return Exit.ok;
    },
  };
}
