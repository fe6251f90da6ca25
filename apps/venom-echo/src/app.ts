import { type AppDefinition, Daemon, type DaemonOptions, loadUserConfig } from "@venom/runtime";
import type { DaemonModule } from "@venom/runtime/cli";
import type { EchoContext } from "./context.js";
import { echoTool } from "./tools/echo.js";
import { readTool } from "./tools/read.js";
import { runTool } from "./tools/run.js";
import { writeTool } from "./tools/write.js";
import { VERSION } from "./version.js";

/** venom-echo's tool table: the only tools its dispatcher knows. */
export const echoTools = [echoTool, readTool, writeTool, runTool] as const;

export const echoApp: AppDefinition<EchoContext> = {
  app: "echo",
  server: { name: "venom-echo", version: VERSION },
  tools: echoTools,
  createContext: (state, daemon, link) => ({
    workspace: state.workspaceDir,
    config: state.config,
    session: state,
    home: daemon.home,
    owner: daemon.owner,
    launchers: daemon.launchers,
    gate: link.gate,
  }),
};

export function createEchoDaemon(options: DaemonOptions): Daemon<EchoContext> {
  return new Daemon(echoApp, options);
}

/** What `serve` loads (scripts/bundle.mjs makes this module the daemon's bundle). */
export const daemonModule: DaemonModule = { createDaemon: createEchoDaemon, loadUserConfig, configSections: [] };
