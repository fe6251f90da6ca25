import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { PaneNewParamsSchema } from "@venom/proto";
import { type ApprovalGate, childMarkers, ErrorCode, MARKER_DEPTH, MARKER_PARENT, ProtocolError, ToolFailure } from "@venom/proto";
import {
  type Config,
  type DelegationOwner,
  delegatedEnv,
  killGroup,
  type LauncherTable,
  type Logger,
  type ProcessRef,
  processStat,
  reapAdopted,
  removeRecord,
  resolveCwd,
  type SessionState,
  signalGroup,
  type VenomHome,
  verifiedMembers,
  waitUntil,
  writeRecord,
} from "@venom/runtime";
import type { z } from "zod";
import { Pane } from "./pane.js";

export interface PaneTableHost {
  home: VenomHome;
  config: Config;
  instance: string;
  owner: DelegationOwner;
  logger: Logger;
  /** Where the approvals of a pane's delegates go: the session that created the pane. */
  launchers: LauncherTable;
}

/** Credential, endpoint and state variables no delegated pane inherits, beside every *_API_KEY (spec, "Tool rules"). */
const DECLARED_VARS = [
  "CLAUDE_CODE_OAUTH_TOKEN",
  "CLAUDE_CONFIG_DIR",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_BASE_URL",
  "OPENAI_ORG_ID",
  "CODEX_HOME",
  "GROK_*",
  "DSH_*",
  "PI_*",
];

const CANCEL_GRACE_MS = 2_000;

interface Tracked {
  pane: Pane;
  recordId: string;
  anchor: ProcessRef;
  /** Forgets the session that created the pane, once its record is gone. */
  forgetLauncher: () => void;
}

/** Every pane of the daemon, by id (`%3`), name, or index. */
export class PaneTable {
  readonly #panes = new Map<string, Tracked>();
  #next = 0;

  constructor(private readonly host: PaneTableHost) {}

  list(): Pane[] {
    return [...this.#panes.values()].map((t) => t.pane);
  }

  resolve(target: string): Pane {
    const panes = this.list();
    const found =
      this.#panes.get(target)?.pane ??
      panes.find((p) => p.name === target) ??
      (/^\d+$/.test(target) ? panes.find((p) => p.spec.index === Number(target)) : undefined);
    if (!found) {
      const known = panes.map((p) => `${p.id} ${p.name}`).join(", ") || "none";
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: target: no pane "${target}" (panes: ${known})`, {
        path: ["target"],
      });
    }
    return found;
  }

  /** A new pane; `gate` is the creating session's, which its delegates' relayed approvals will ask. */
  create(params: z.infer<typeof PaneNewParamsSchema>, session: SessionState, gate: ApprovalGate): Pane {
    const { config } = this.host;
    if (this.#panes.size >= config.mux.max_panes) {
      throw new ProtocolError(ErrorCode.Busy, `busy: at most ${config.mux.max_panes} panes (mux.max_panes)`);
    }
    // An orchestrator launching for a delegate asks for a deeper pane; nobody can ask for a shallower one.
    const parentDepth = Math.max(session.principal.depth, params.parentDepth ?? 0);
    const depth = parentDepth + 1;
    const maxDepth = session.config.agent.max_delegation_depth;
    if (depth > maxDepth) {
      throw new ProtocolError(
        ErrorCode.DepthLimit,
        `refused: a pane here would run at delegation depth ${depth}, over the limit of ${maxDepth} (agent.max_delegation_depth)`,
      );
    }
    if (params.name) this.assertNameFree(params.name);
    for (const key of Object.keys(params.env ?? {})) {
      if (key.startsWith("VENOM_")) {
        throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: env.${key}: Venom's own variables cannot be set`, {
          path: ["env", key],
        });
      }
    }
    const cwd = this.#cwd(params.cwd ?? session.workspace, session.workspace);
    const index = ++this.#next;
    const id = `%${index}`;
    const recordId = `mux-${this.host.instance.slice(0, 8)}-${index}`;
    const parent = `${this.host.instance}/${recordId}`;
    const env = this.#env(params, parent, parentDepth, maxDepth);
    const argv = params.argv ?? [process.env.SHELL || "/bin/sh"];
    if (!resolvesToProgram(argv[0] as string, env.PATH ?? "", cwd)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: argv.0: no such program: ${argv[0]}`, { path: ["argv", "0"] });
    }
    const pane = new Pane(
      {
        id,
        index,
        name: params.name ?? `${index}`,
        argv,
        cwd,
        env,
        cols: params.cols,
        rows: params.rows,
        depth,
        envPolicy: params.envPolicy,
        scrollback: config.mux.scrollback_lines,
      },
      (ended) => void this.#ended(ended),
    );
    // node-pty starts the program as a session leader: its pid is its process group.
    const startTime = processStat(pane.pid)?.startTime ?? 0;
    const anchor = { pid: pane.pid, startTime };
    const forgetLauncher = this.host.launchers.add(recordId, { name: pane.name, grant: session.grant, gate });
    this.#panes.set(id, { pane, recordId, anchor, forgetLauncher });
    writeRecord(this.host.home, {
      id: recordId,
      owner: this.host.owner,
      pid: pane.pid,
      startTime,
      pgid: pane.pid,
      parent,
      depth,
      grant: session.grant,
      label: `[mux pane ${id} ${pane.name}]`,
      workspace: session.workspace,
      createdAt: pane.createdAt,
    });
    this.host.logger.info({ pane: id, pid: pane.pid, depth, envPolicy: params.envPolicy }, "pane created");
    return pane;
  }

  #cwd(cwd: string, workspace: string): string {
    try {
      return resolveCwd(cwd, workspace);
    } catch (error) {
      if (error instanceof ToolFailure) {
        throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: cwd: ${error.message.replace(/^cwd:? ?/, "")}`, {
          path: ["cwd"],
        });
      }
      throw error;
    }
  }

  #env(params: z.infer<typeof PaneNewParamsSchema>, parent: string, parentDepth: number, maxDepth: number): Record<string, string> {
    if (params.envPolicy === "delegated") {
      const agent = params.agent ?? "pane";
      const configured = Object.values(this.host.config.agents).flatMap((a) => [
        ...a.credential_vars,
        ...(a.state_var ? [a.state_var] : []),
      ]);
      const stateVar = params.stateVar ?? this.host.config.agents[agent]?.state_var;
      // An allow-list: the base set from the daemon's environment plus the caller's env, from which
      // no key, credential, HOME or marker gets through.
      return {
        ...delegatedEnv({
          base: process.env,
          extra: params.env ?? {},
          home: this.host.home,
          agent,
          ...(stateVar ? { stateVar } : {}),
          declaredVars: [...DECLARED_VARS, ...configured],
          parent,
          parentDepth,
          maxDepth,
        }),
        TERM: "xterm-256color",
      };
    }
    // inherit: the daemon's environment, as tmux gives its server's, with this pane's markers.
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && key !== MARKER_PARENT && key !== MARKER_DEPTH) env[key] = value;
    }
    return { ...env, ...params.env, TERM: "xterm-256color", ...childMarkers(parent, parentDepth) };
  }

  /** A pane's program ended: stop what it left in its group, drop its record, keep its status for wait and ls. */
  async #ended(pane: Pane): Promise<void> {
    const tracked = this.#panes.get(pane.id);
    if (!tracked) return;
    await this.#stopGroup(tracked);
    removeRecord(this.host.home, tracked.recordId);
    tracked.forgetLauncher();
    this.host.logger.info({ pane: pane.id, exitCode: pane.exitCode, signal: pane.signal }, "pane exited");
  }

  /** HUP and TERM to the pane's whole process group (through pidfds), KILL after 2 s to whatever remains. */
  async #stopGroup(tracked: Tracked): Promise<number[]> {
    const { anchor } = tracked;
    // HUP first, as a terminal that goes away sends it (interactive shells ignore TERM but end on HUP), then TERM.
    const signalled = [...signalGroup(anchor.pid, anchor, "SIGHUP"), ...signalGroup(anchor.pid, anchor, "SIGTERM")];
    await waitUntil(() => verifiedMembers(anchor.pid, anchor).length === 0, Date.now() + CANCEL_GRACE_MS);
    const killed = await killGroup(anchor.pid, anchor);
    // Orphans adopted by this daemon (subreaper) are reaped here; the leader belongs to node-pty.
    reapAdopted([...signalled, ...killed].filter((pid) => pid !== anchor.pid));
    return [...new Set([...signalled, ...killed])];
  }

  /** Kill a pane: its whole group ends, and it leaves the table. */
  async kill(pane: Pane): Promise<void> {
    const tracked = this.#panes.get(pane.id);
    if (!tracked) return;
    await this.#stopGroup(tracked);
    await Promise.race([pane.exited(), new Promise((r) => setTimeout(r, CANCEL_GRACE_MS))]);
    removeRecord(this.host.home, tracked.recordId);
    tracked.forgetLauncher();
    this.#panes.delete(pane.id);
    pane.dispose();
  }

  /** Names are targets, so two panes may not share one. */
  assertNameFree(name: string, except?: Pane): void {
    if (this.list().some((p) => p !== except && p.name === name)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: name: a pane named "${name}" exists`, { path: ["name"] });
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.list().map((pane) => this.kill(pane)));
  }
}

/** Does `program` name an executable, directly or on PATH? */
function resolvesToProgram(program: string, path: string, cwd: string): boolean {
  const candidates = program.includes("/")
    ? [isAbsolute(program) ? program : join(cwd, program)]
    : path.split(delimiter).map((dir) => join(dir, program));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
