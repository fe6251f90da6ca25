import { existsSync } from "node:fs";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";
import { connectCli } from "./connect.js";

export function stopCommand(app: CliApp): Command {
  return {
    name: "stop",
    summary: "stop the daemon: cancel its calls and remove its socket",
    usage: "stop",
    management: true,
    async execute({ home, json, io }) {
      const client = await connectCli(app, home);
      try {
        await client.request("daemon/stop");
      } finally {
        client.close();
      }
      // Wait until the socket is gone, so a following `start` never races the old daemon.
      const socket = home.socket(app.app);
      for (let i = 0; i < 200 && existsSync(socket); i++) await new Promise((r) => setTimeout(r, 25));
      if (json) io.out(JSON.stringify({ stopped: true }));
      else io.out(`${app.program} stopped`);
      return Exit.ok;
    },
  };
}
