#!/usr/bin/env node
import { type CliApp, callCommand, daemonCommands, type Program, runProgram } from "@venom/runtime/cli";
import { VERSION } from "./version.js";

const app: CliApp = {
  program: "venom-echo",
  app: "echo",
  version: VERSION,
  loadDaemon: async () => (await import("./app.js")).daemonModule,
  // Only the runtime's own sections of config.toml.
  configSections: async () => [],
};

/** venom-echo's command table. */
const program: Program = {
  name: "venom-echo",
  description: "the smallest complete venom/1 daemon: tools echo, read, write and run, under approval, in one workspace",
  commands: [...daemonCommands(app), callCommand(app)],
  limits: [
    "read and write are confined to the workspace by the kernel (openat2 RESOLVE_BENEATH); secret-like names (.env, id_rsa, *.pem) ask before reading, but that is a name heuristic, not a confidentiality boundary.",
    'run starts programs in their own process group, with a timeout and bounded output; by default with your full permissions, not sandboxed, so what it runs can reach anything you can. With [sandbox] mode = "landlock" the kernel (Landlock) confines it: it writes only the workspace and a private home, and cannot read your home.',
    "Delegation checks are cooperative: a process that clears its environment and leaves Venom's process tree is not recognised as a delegate.",
  ],
};

// Not a top-level await: the bundle is CommonJS (scripts/bundle.mjs).
void runProgram(program, process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
