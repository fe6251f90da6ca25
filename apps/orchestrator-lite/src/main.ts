#!/usr/bin/env node
import { type CliApp, daemonCommands, type Program, runProgram } from "@venom/runtime/cli";
import { agentsCommand } from "./commands/agents.js";
import { attachCommand } from "./commands/attach.js";
import { cancelCommand } from "./commands/cancel.js";
import { historyCommand } from "./commands/history.js";
import { answerCommand, inboxCommand } from "./commands/inbox.js";
import { jobsCommand } from "./commands/jobs.js";
import { runCommand } from "./commands/run.js";
import { diffCommand, worktreeToolCommand } from "./commands/worktree.js";
import { VERSION } from "./version.js";

const app: CliApp = {
  program: "venom-orch",
  app: "orch",
  version: VERSION,
  loadDaemon: async () => (await import("./app.js")).daemonModule,
  configSections: async () => (await import("./config.js")).orchSections,
};

/** venom-orch's command table. */
const program: Program = {
  name: "venom-orch",
  description: "hands work to agent CLIs in venom-mux panes and relays every approval of the delegation chain to you",
  commands: [
    runCommand(app),
    jobsCommand(app),
    cancelCommand(app),
    attachCommand(app),
    diffCommand(app),
    worktreeToolCommand(app, "merge"),
    worktreeToolCommand(app, "clean"),
    inboxCommand(app),
    answerCommand(app, "approve"),
    answerCommand(app, "deny"),
    historyCommand(app),
    agentsCommand(app),
    ...daemonCommands(app),
  ],
  outside: "Run it from a terminal outside Venom's delegated processes (not from an agent's pane).",
  limits: [
    "Agents run as your user, unconfined, in venom-mux panes: each gets an allow-listed environment (no API keys, tokens or other agents' credentials) and a private HOME under $VENOM_HOME/agents/NAME, but it can still read and write whatever your user can.",
    'Approvals of Venom\'s own daemons (venom-echo, venom-mux, venom-orch) called from inside an agent\'s pane come back to you; what an agent does with its own tools is decided by the agent (permissions = "full" turns its own prompts off), except an agent reached over ACP ([agents.NAME] acp = true or transport = "acp"|"auto"): its permission requests come to you too, and venom-orch refuses its every file-system and terminal request.',
    "Delegation bookkeeping is cooperative: an agent that clears its environment and leaves its process tree is not recognised as a delegate.",
  ],
};

// Not a top-level await: the bundle is CommonJS (scripts/bundle.mjs).
void runProgram(program, process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
