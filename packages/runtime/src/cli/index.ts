// The client side of the runtime for CLI programs: commands and the client,
// without the daemon's modules (pino, koffi bindings, process machinery) or
// zod, so a command like `ls` starts fast. Import it as "@venom/runtime/cli";
// a command that reads the configuration imports "@venom/runtime/config" when it runs
// (or goes through loadUserConfigMemo, which imports it only when config.toml changed).
export * from "../client.js";
export { loadUserConfigMemo } from "../config-memo.js";
export { sectionOf } from "../config-sections.js";
export * from "../home.js";
export * from "../rpc.js";
export * from "../socket-probe.js";
export * from "./app.js";
export { callCommand } from "./commands/call.js";
export { type ConnectOptions, connectCli, NotRunning, OwnerContextRequired } from "./commands/connect.js";
export { dialStdioCommand } from "./commands/dial-stdio.js";
export { restartCommand } from "./commands/restart.js";
export { serveCommand } from "./commands/serve.js";
export { startCommand } from "./commands/start.js";
export { statusCommand } from "./commands/status.js";
export { stopCommand } from "./commands/stop.js";
export * from "./connections.js";
export * from "./gate.js";
export * from "./program.js";
export { startIn, workspaceHere } from "./start-dir.js";

import type { CliApp } from "./app.js";
import { dialStdioCommand } from "./commands/dial-stdio.js";
import { restartCommand } from "./commands/restart.js";
import { serveCommand } from "./commands/serve.js";
import { startCommand } from "./commands/start.js";
import { statusCommand } from "./commands/status.js";
import { stopCommand } from "./commands/stop.js";
import type { Command } from "./program.js";

/** The commands every daemon app shares: serve, start, stop, status, restart, dial-stdio. */
export function daemonCommands(app: CliApp): Command[] {
  return [serveCommand(app), startCommand(app), stopCommand(app), statusCommand(app), restartCommand(app), dialStdioCommand(app)];
}
