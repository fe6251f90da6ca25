#!/usr/bin/env node
import { type CliApp, callCommand, daemonCommands, runProgram } from "@venom/runtime/cli";

const app: CliApp = {
  program: "venom-greeter",
  app: "greeter",
  version: "0.1.0",
  loadDaemon: async () => (await import("./app.js")).daemonModule,
  configSections: async () => [(await import("./config.js")).greeterSection],
};

process.exitCode = await runProgram(
  {
    name: "venom-greeter",
    description: "an example venom/1 daemon: one tool, greet, and a [greeter] section of config.toml",
    commands: [...daemonCommands(app), callCommand(app)],
    limits: ["It only greets: it reads and starts nothing."],
  },
  process.argv.slice(2),
);
