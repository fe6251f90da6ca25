#!/usr/bin/env node
import { type CliApp, daemonCommands, type Program, runProgram } from "@venom/runtime/cli";
import { attachCommand } from "./commands/attach.js";
import { captureCommand } from "./commands/capture.js";
import { killCommand } from "./commands/kill.js";
import { lsCommand } from "./commands/ls.js";
import { newCommand } from "./commands/new.js";
import { renameCommand } from "./commands/rename.js";
import { resizeCommand } from "./commands/resize.js";
import { sendCommand } from "./commands/send.js";
import { waitCommand } from "./commands/wait.js";
import { VERSION } from "./version.js";

const app: CliApp = {
  program: "venom-mux",
  app: "mux",
  version: VERSION,
  loadDaemon: async () => (await import("./app.js")).createMuxDaemon,
};

/** tmux's names for the daemon commands every venom program has. */
const DAEMON_ALIASES: Record<string, string[]> = { stop: ["kill-server"], start: ["start-server"] };

/** venom-mux's command table: tmux verbs, with tmux's own command names and aliases. */
const program: Program = {
  name: "venom-mux",
  description: "a terminal multiplexer with tmux habits, for hosting agent panes you can watch and take over",
  commands: [
    newCommand(app),
    lsCommand(app),
    attachCommand(app),
    sendCommand(app),
    captureCommand(app),
    killCommand(app),
    waitCommand(app),
    renameCommand(app),
    resizeCommand(app),
    ...daemonCommands(app).map((command) => ({ ...command, aliases: DAEMON_ALIASES[command.name] ?? [] })),
  ],
  outside: "Run it from a terminal outside the multiplexer (not in one of its panes); in an attached client, the : prompt may.",
  limits: [
    "Panes run as your user, unconfined; the pane's cwd must be inside the daemon's workspace, which is a rule for where panes start, not a boundary for what they do.",
    "Every pane carries VENOM_PARENT/VENOM_DELEGATION_DEPTH and a delegation record: stop, restart and config changes typed in a pane are refused (even under env -i), but a process that leaves the pane's process tree and clears its environment is not recognised.",
    "Inside a pane, ls and every pane command reach only that pane and the panes made from it; the owner's terminal reaches all.",
  ],
};

process.exitCode = await runProgram(program, process.argv.slice(2));
