#!/usr/bin/env node
import {
  type CliApp,
  callCommand,
  type Program,
  restartCommand,
  runProgram,
  serveCommand,
  startCommand,
  statusCommand,
  stopCommand,
} from "@venom/runtime/cli";
import { VERSION } from "./version.js";

const app: CliApp = {
  program: "venom-echo",
  app: "echo",
  version: VERSION,
  loadDaemon: async () => (await import("./app.js")).createEchoDaemon,
};

/** venom-echo's command table. */
const program: Program = {
  name: "venom-echo",
  description: "the smallest complete venom/1 daemon: tools echo and read, under approval, in one workspace",
  commands: [serveCommand(app), startCommand(app), stopCommand(app), statusCommand(app), restartCommand(app), callCommand(app)],
  limits: [
    "read is confined to the workspace by the kernel (openat2 RESOLVE_BENEATH); secret-like names (.env, id_rsa, *.pem) ask first, but that is a name heuristic, not a confidentiality boundary.",
    "Delegation checks are cooperative: a process that clears its environment and leaves Venom's process tree is not recognised as a delegate.",
  ],
};

process.exitCode = await runProgram(program, process.argv.slice(2));
