import { existsSync } from "node:fs";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";

export function stopCommand(app: CliApp): Command {
  return {
    name: "stop",
    summary: "stop the daemon: cancel its calls and remove its socket",
    usage: "stop",
    management: true,
    async execute({ home, json, io, connections }) {
      // The command line's own connection, closed after: a later command of a sequence (`stop \; ls`) then connects
      // again and finds no daemon. On a connection of its own, the one the sequence shared could still look open
      // when the socket was gone, and that command failed with "connection closed" instead of "not running".
      const client = await connections.client(app, home);
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
