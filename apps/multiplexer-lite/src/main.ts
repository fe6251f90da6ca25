#!/usr/bin/env node
import { type Program, runProgram } from "@venom/runtime/cli";
import { muxApp as app } from "./cli-app.js";
import { cliCommand } from "./commands/args.js";
import { withDefaultKeys } from "./commands/bindings.js";
import { muxCommands } from "./commands/table.js";

/** venom-mux's CLI: its one command table (commands/table.ts), which the attached client's `:` prompt shares. */
const program: Program = {
  name: "venom-mux",
  description: "a terminal multiplexer with tmux habits, for hosting agent panes you can watch and take over",
  commands: muxCommands(app).map((command) => cliCommand(app, withDefaultKeys(command))),
  outside: "Run it from a terminal outside the multiplexer (not in one of its panes); in an attached client, the : prompt may.",
  limits: [
    "Panes run as your user, unconfined unless [sandbox] (or the agent's own sandbox) is on; the pane's cwd must be inside the daemon's workspace, which is a rule for where panes start, not a boundary for what they do.",
    "Every pane carries VENOM_PARENT/VENOM_DELEGATION_DEPTH and a delegation record: stop, restart and config changes typed in a pane are refused (even under env -i), but a process that leaves the pane's process tree and clears its environment is not recognised.",
    "Inside a pane, ls and every pane command reach only that pane and the panes made from it; the owner's terminal reaches all.",
  ],
};

// Not a top-level await: the bundle is CommonJS (scripts/bundle.mjs).
void runProgram(program, process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
