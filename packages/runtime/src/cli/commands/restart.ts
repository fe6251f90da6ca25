import { START_TIMEOUT_MS } from "../../daemon-start.js";
import type { VenomHome } from "../../home.js";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";
import { connectCli, NotRunning } from "./connect.js";

const POLL_MS = 20;

/**
 * Restart the daemon into the program installed at its own path, and return
 * once the new daemon answers, as `start` does: `restart && run …` must find
 * it. Only `--when-idle` is allowed under a delegation (conformance/spec/security-model.txt, "Delegated
 * runs"); it returns at once, as the restart may be far off.
 */
export function restartCommand(app: CliApp): Command {
  return {
    name: "restart",
    summary:
      "restart the daemon and wait until the new one answers (--when-idle: once no call, relayed approval, job or pane is running, without waiting; allowed at any delegation depth)",
    usage: "restart [--when-idle]",
    management: (values) => values["when-idle"] !== true,
    options: { "when-idle": { type: "boolean" } },
    async execute({ home, json, io, values }) {
      const client = await connectCli(app, home);
      let result: { whenIdle: boolean };
      try {
        result = await client.request("daemon/restart", { whenIdle: values["when-idle"] === true });
      } finally {
        client.close();
      }
      if (result.whenIdle) {
        if (json) io.out(JSON.stringify(result));
        else io.out(`${app.program} restart scheduled for when it is idle`);
        return Exit.ok;
      }
      const pid = await successor(app, home, client.hello.instance);
      if (json) io.out(JSON.stringify({ ...result, restarted: true, pid }));
      else io.out(`${app.program} restarted (pid ${pid})`);
      return Exit.ok;
    },
  };
}

/** The pid of the daemon that answers on the app's socket once it is no longer `instance`. */
async function successor(app: CliApp, home: VenomHome, instance: string): Promise<number> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      const client = await connectCli(app, home);
      try {
        if (client.hello.instance !== instance) return (await client.request("daemon/status")).pid;
      } finally {
        client.close();
      }
    } catch (error) {
      // Between the old daemon's stop and the new one's listen, nothing answers.
      if (!(error instanceof NotRunning)) throw error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `the daemon stopped, and no new one answered within ${START_TIMEOUT_MS / 1000} s; see ${home.logs}/${app.app}.stderr`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
