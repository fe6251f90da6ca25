import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";
import { connectCli } from "./connect.js";

/**
 * Restart the daemon into the program installed at its own path. Only
 * `--when-idle` is allowed under a delegation (spec, "Delegated runs").
 */
export function restartCommand(app: CliApp): Command {
  return {
    name: "restart",
    summary: "restart the daemon (--when-idle: once no call is running; allowed at any delegation depth)",
    usage: "restart [--when-idle]",
    management: (values) => values["when-idle"] !== true,
    options: { "when-idle": { type: "boolean" } },
    async execute({ home, json, io, values }) {
      const client = await connectCli(app, home);
      try {
        const result = await client.request("daemon/restart", { whenIdle: values["when-idle"] === true });
        if (json) io.out(JSON.stringify(result));
        else io.out(`${app.program} restart scheduled${result.whenIdle ? " for when it is idle" : ""}`);
        return Exit.ok;
      } finally {
        client.close();
      }
    },
  };
}
