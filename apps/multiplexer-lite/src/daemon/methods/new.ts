import { askApproval, cutMiddle, ErrorCode, ProtocolError, terminalSafe } from "@venom/proto";
import { type ConnectionSession, requireKnownConfinement, requireProjectConfig } from "@venom/runtime";
import type { MuxContext } from "../context.js";
import type { Pane } from "../pane.js";
import { DEFAULT_AGENT, type PaneTable } from "../panes.js";
import { type PaneParams, paneMethod } from "./define.js";

/**
 * A new pane. The owner creates one as in tmux, and so does the person typing
 * in one of their own shells; any other delegate's new pane (an agent's, a
 * tool's process) starts a process one level deeper, so it needs approval,
 * which goes up the relay to whoever launched the delegate (never the
 * delegate's own connection).
 */
export const newMethod = (panes: PaneTable) =>
  paneMethod("pane/new", async (params, session) => {
    // A caller whose confinement cannot be known gets no pane, before anyone is asked for one.
    requireKnownConfinement(session.state);
    // Limits a project config lowers (depth, cwd's workspace) apply to new panes: a broken one refuses them.
    requireProjectConfig(session.state);
    const asked = panes.launchAs(params, session.state);
    panes.depthOf(asked, session.state);
    if (session.state.principal.kind === "delegate" && !panes.inPersonalShell(session.state)) await approveNewPane(asked, session);
    const pane = panes.create(asked, session.state, session.gate);
    if (pane.pipe) bindStdio(panes, pane, session);
    if (asked.lifetime === "connection" || pane.pipe) {
      session.context.bound.add(pane);
      void pane.exited().then(() => session.context.bound.delete(pane));
    }
    return pane.info();
  });

/**
 * A pipe pane's stdio belongs to the connection that made it: stdout streams
 * to it as `pane/stdout`, and only it may write stdin. A peer that stops
 * reading is cut off (its connection closes, and the pane with it).
 */
function bindStdio(panes: PaneTable, pane: Pane, session: ConnectionSession<MuxContext>): void {
  const { rpc } = session;
  session.context.pipes.add(pane);
  pane.pipe?.bindStdout({
    backlog: () => rpc.backlog,
    data: (chunk) => rpc.notify("pane/stdout", { pane: pane.id, data: chunk.toString("base64") }),
    eof: () => rpc.notify("pane/stdout", { pane: pane.id, data: "", eof: true }),
    onDrain: (callback) => rpc.onDrain(callback),
    cutOff: (why) => {
      panes.logger.warn({ pane: pane.id }, `cutting off the connection of a pipe pane: ${why}`);
      rpc.close();
    },
  });
}

async function approveNewPane(params: PaneParams<"pane/new">, session: ConnectionSession<MuxContext>): Promise<void> {
  const argv = (params.argv ?? ["(default shell)"]).map((a) => JSON.stringify(a)).join(" ");
  const request = {
    callId: `pane-new-${Date.now()}`,
    tool: "pane/new",
    // Every value the caller chose quoted (a directory's name can hold a newline that imitates a prompt; a pane's name cannot),
    // and cut in the middle: the tail of a command is what it does last.
    summary: cutMiddle(
      `new pane${params.name ? ` ${params.name}` : ""}, ${environment(params)}: ${argv}${params.cwd ? ` in ${JSON.stringify(params.cwd)}` : ""}`,
      1024,
    ),
    risk: "process" as const,
    label: session.state.label,
  };
  const outcome = await askApproval(session.state.grant, session.gate, request, session.closed);
  if (!outcome.allowed) {
    throw new ProtocolError(ErrorCode.OwnerRequired, `refused: a delegate's new pane needs approval: ${outcome.reason}`, {
      principal: session.state.principal,
    });
  }
}

/**
 * The environment a new pane gets, as its approval question says it: the
 * policy, the agent whose home it gets, and the name of every variable the
 * caller sets. Never a value: values may be secrets.
 */
function environment(params: PaneParams<"pane/new">): string {
  const agent = params.envPolicy === "delegated" ? ` (agent ${params.agent ?? DEFAULT_AGENT})` : "";
  const names = Object.keys(params.env ?? {}).map((name) => terminalSafe(name, { singleLine: true }));
  return `env ${params.envPolicy}${agent}${names.length > 0 ? ` setting ${names.join(", ")}` : ""}`;
}
