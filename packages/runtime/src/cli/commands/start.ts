import { join, resolve } from "node:path";
import { openPrivateAppend } from "../../private-files.js";
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
      const args = [process.argv[1] as string, "serve", "--workspace", workspace];
      if (values.policy) args.push("--policy", values.policy as string);
      // The daemon's stderr goes to a private file: a crash before the logger exists still leaves a trace.
      const stderr = openPrivateAppend(join(home.logs, `${app.app}.stderr`));
      // Loaded here: child_process is not worth the start time of every command.
      const { spawn } = await import("node:child_process");
      const child = spawn(process.execPath, args, {
        detached: true,
        stdio: ["ignore", "ignore", stderr],
        env: { ...process.env, VENOM_HOME: home.root },
      });
      child.unref();
      const deadline = Date.now() + 15_000;
      // A connect to a socket that is not there yet costs little: asked often, start returns soon after the daemon listens.
      while (!(await answers(socket))) {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`the daemon did not start; see ${join(home.logs, `${app.app}.stderr`)}`);
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      if (json) io.out(JSON.stringify({ started: true, pid: child.pid, socket, workspace }));
      else io.out(`${app.program} started (pid ${child.pid}) on ${socket}, workspace ${workspace}`);
      return Exit.ok;
    },
  };
}
