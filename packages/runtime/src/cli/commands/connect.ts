import { type ClientOptions, VenomClient } from "../../client.js";
import type { VenomHome } from "../../home.js";
import type { CliApp } from "../app.js";
import { terminalGate } from "../gate.js";
import { cliChecks } from "../replies.js";

/** Nothing answers on the app's socket: says where it looked and how to start the daemon. */
export class NotRunning extends Error {
  constructor(program: string, socket: string) {
    super(`no ${program} daemon is running on ${socket}; \`${program} start\` starts one`);
  }
}

/** Connect a CLI command to its app's daemon; approvals go to the terminal when there is one. */
export async function connectCli(
  app: CliApp,
  home: VenomHome,
  options: Omit<Partial<ClientOptions>, "client" | "gate"> = {},
): Promise<VenomClient> {
  const socket = home.socket(app.app);
  try {
    const gate = terminalGate(app.program);
    return await VenomClient.connect(socket, {
      client: { name: app.program, version: app.version },
      ...(gate ? { gate } : {}),
      checks: cliChecks,
      ...options,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED") throw new NotRunning(app.program, socket);
    throw error;
  }
}
