import { type CliApp, daemonCommands } from "@venom/runtime/cli";
import type { MuxCommand } from "./command.js";

/** tmux's names for the daemon commands every venom program has. */
const ALIASES: Record<string, string[]> = { stop: ["kill-server"], start: ["start-server"] };

/**
 * serve, start, stop, status, restart: the runtime's, under tmux's names too; `kill-server` also at the `:` prompt,
 * where the attached client's connection, outside the panes, has the owner context.
 */
export function muxDaemonCommands(app: CliApp): MuxCommand[] {
  return daemonCommands(app).map((command) => ({
    ...command,
    aliases: ALIASES[command.name] ?? [],
    target: "none" as const,
    // The runtime's own commands read their arguments themselves.
    args: {},
    ...(command.name === "stop"
      ? {
          async prompt(host) {
            await host.stopServer();
            return { drew: true };
          },
        }
      : {}),
  }));
}
