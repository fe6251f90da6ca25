import { type AppDefinition, Daemon, type DaemonOptions, loadUserConfig } from "@venom/runtime";
import type { DaemonModule } from "@venom/runtime/cli";
import { orchSections } from "./config.js";
import type { OrchContext } from "./context.js";
import { Orchestrator } from "./orchestrator.js";
import { agentTool } from "./tools/agent.js";
import { agentCancelTool } from "./tools/agent-cancel.js";
import { agentJobsTool } from "./tools/agent-jobs.js";
import { VERSION } from "./version.js";

/** venom-orch's tool table: the only tools its dispatcher knows. */
export const orchTools = [agentTool, agentJobsTool, agentCancelTool] as const;

const SERVER = { name: "venom-orch", version: VERSION };

/** venom-orch: delegates to agent CLIs in venom-mux panes and relays their approvals. */
export function createOrchDaemon(options: DaemonOptions): Daemon<OrchContext> {
  let orchestrator: Orchestrator | undefined;
  const definition: AppDefinition<OrchContext> = {
    app: "orch",
    server: SERVER,
    tools: orchTools,
    // Called once the daemon exists: the orchestrator needs its logger and canonical workspace.
    methods: (daemon) => {
      orchestrator = new Orchestrator(options.home, daemon.workspace, SERVER, daemon.logger, () => daemon.checkIdle());
      return {};
    },
    createContext: (state, _daemon, link) => ({
      state,
      orchestrator: orchestrator as Orchestrator,
      launcher: {
        depth: state.principal.depth,
        delegation: state.delegation,
        grant: state.grant,
        gate: link.gate,
        notify: link.notify,
        workspace: state.workspace,
      },
    }),
    // Jobs belong to their session: a delegate's end with it. The owner's background jobs run on
    // until they finish, are cancelled, or the daemon stops (docs/venom-orch.md, "Background jobs").
    disposeContext: (context) => {
      if (context.state.principal.kind !== "owner") context.orchestrator.cancelLaunchedBy(context.launcher);
    },
    notices: () => {
      const lost = orchestrator?.interrupted ?? [];
      if (lost.length === 0) return [];
      return [
        `${lost.length} job(s) were running when venom-orch last ended; venom-mux stopped their panes: ${lost.map((j) => j.name).join(", ")} (venom-orch jobs lists them)`,
      ];
    },
    beforeStop: async () => orchestrator?.stopAll(),
    // A running job is work in progress: restart --when-idle waits for every job to end.
    busy: () => orchestrator?.running ?? false,
  };
  return new Daemon(definition, options);
}

/** What `serve` loads (scripts/bundle.mjs makes this module the daemon's bundle). */
export const daemonModule: DaemonModule = { createDaemon: createOrchDaemon, loadUserConfig, configSections: orchSections };
