import { ErrorCode, InboxMethods, ProtocolError } from "@venom/proto";
import { type AppDefinition, type AppMethod, type ConnectionSession, Daemon, type DaemonOptions, loadUserConfig } from "@venom/runtime";
import type { DaemonModule } from "@venom/runtime/cli";
import type { z } from "zod";
import { orchSections } from "./config.js";
import type { OrchContext } from "./context.js";
import { ApprovalHistory } from "./history.js";
import { Inbox, NotWaiting } from "./inbox.js";
import { Notifier, notifySection } from "./notify.js";
import { Orchestrator } from "./orchestrator.js";
import { agentTool } from "./tools/agent.js";
import { agentCancelTool } from "./tools/agent-cancel.js";
import { agentJobsTool } from "./tools/agent-jobs.js";
import { agentCleanTool, agentMergeTool } from "./tools/agent-worktree.js";
import { VERSION } from "./version.js";

/** venom-orch's tool table: the only tools its dispatcher knows. */
export const orchTools = [agentTool, agentJobsTool, agentCancelTool, agentMergeTool, agentCleanTool] as const;

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
      const inbox = new Inbox();
      const log = (message: string, fields: Record<string, unknown>) => daemon.logger.warn(fields, message);
      const person = {
        inbox,
        history: new ApprovalHistory(options.home, (error) => log("the approval history could not be written", { error: error.message })),
        notifier: new Notifier(notifySection.read(options.config).command, log),
        waitSeconds: options.config.approval.wait_seconds,
      };
      const jobs = new Orchestrator(options.home, daemon.workspace, SERVER, daemon.logger, () => daemon.checkIdle(), person);
      orchestrator = jobs;
      return inboxMethods(inbox, jobs);
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
      const worktrees = lost.filter((j) => j.worktree && !j.worktree.removed).map((j) => j.name);
      return [
        `${lost.length} job(s) were running when venom-orch last ended; venom-mux stopped their panes: ${lost.map((j) => j.name).join(", ")} (venom-orch jobs lists them)`,
        ...(worktrees.length > 0
          ? [`their worktrees remain: ${worktrees.join(", ")} (venom-orch diff, merge or clean JOB; .venom/worktrees/LABEL)`]
          : []),
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

type InboxMethodName = keyof typeof InboxMethods;

/** An inbox method whose params schema and management flag (owner only) come from proto. */
function inboxMethod<N extends InboxMethodName>(
  name: N,
  handle: (params: z.infer<(typeof InboxMethods)[N]["params"]>, session: ConnectionSession<OrchContext>) => Promise<unknown>,
): AppMethod<OrchContext> {
  const spec = InboxMethods[name];
  return {
    params: spec.params,
    management: spec.management,
    handle: async (params, session) => {
      try {
        return await handle(params as z.infer<(typeof InboxMethods)[N]["params"]>, session);
      } catch (error) {
        if (error instanceof NotWaiting) throw new ProtocolError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
    },
  };
}

/** The inbox (docs/venom-orch.md, "The inbox"): listed, watched and answered by the owner only. */
function inboxMethods(inbox: Inbox, jobs: Orchestrator): Record<InboxMethodName, AppMethod<OrchContext>> {
  return {
    "inbox/list": inboxMethod("inbox/list", async (params, session) => {
      if (params?.watch) {
        const stop = inbox.watch((event) => session.rpc.notify("event/inbox", event));
        session.closed.addEventListener("abort", stop, { once: true });
      }
      return { questions: inbox.list() };
    }),
    "inbox/answer": inboxMethod("inbox/answer", async ({ id, decision, reason }) => {
      const question = inbox.answer(id, { decision, by: "inbox", ...(reason ? { reason } : {}) });
      return { question, decision };
    }),
    "inbox/details": inboxMethod("inbox/details", async ({ id }) => jobs.details(id)),
  };
}
