import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { agentsOf, everyDeclaredVar } from "@venom/agents";
import type { PaneNewParamsSchema } from "@venom/proto";
import { type ApprovalGate, childMarkers, ErrorCode, MARKER_DEPTH, MARKER_PARENT, ProtocolError, ToolFailure } from "@venom/proto";
import {
  ancestorRecord,
  type Config,
  type DelegationOwner,
  delegatedEnv,
  findRecord,
  isRunning,
  killGroup,
  type LauncherTable,
  type Logger,
  lineageOf,
  type ProcessRef,
  processStat,
  reapAdopted,
  recordPath,
  refusedAsProtocolError,
  removeRecord,
  resolveCwd,
  type SandboxProfile,
  type SessionState,
  sandboxedCommand,
  sandboxFor,
  sees,
  signalGroup,
  spawnedChild,
  type VenomHome,
  verifiedMembers,
  waitUntil,
  writeRecord,
} from "@venom/runtime";
import type { z } from "zod";
import { type MuxConfig, muxSection } from "../config.js";
import { Pane } from "./pane.js";

export interface PaneTableHost {
  home: VenomHome;
  config: Config;
  instance: string;
  owner: DelegationOwner;
  logger: Logger;
  /** Where the approvals of a pane's delegates go: the session that created the pane. */
  launchers: LauncherTable;
  /** A pane's program ended: the daemon may now be idle (a restart --when-idle waits for that). */
  paneEnded?(): void;
}

/** Whose private home a delegated pane gets when nobody names an agent. */
export const DEFAULT_AGENT = "pane";

type NewParams = z.infer<typeof PaneNewParamsSchema>;

/**
 * Variables that describe the daemon's own terminal or multiplexer, not a
 * pane's: a program that trusted them would talk to the wrong tmux/screen
 * server or size itself wrongly. node-pty drops some of them itself, but only
 * from the env it copies, not from one passed in, so they are dropped here.
 */
const OUTER_TERMINAL_VARS = new Set(["TMUX", "TMUX_PANE", "STY", "WINDOW", "WINDOWID", "TERMCAP", "COLUMNS", "LINES"]);

/** The daemon's environment as a pane may start from it. */
function daemonEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !OUTER_TERMINAL_VARS.has(key)) env[key] = value;
  }
  return env;
}

const CANCEL_GRACE_MS = 2_000;
/**
 * What a screen model costs, measured (RSS of ten models with full
 * scrollbacks, at 40 to 200 columns): xterm keeps three 32-bit words a cell in
 * a typed array per line, and each line costs some 600 bytes more (the line,
 * its array and buffer, two maps, the allocator's share): 15 MiB for 80x24
 * with 10,000 lines of scrollback.
 */
const BYTES_PER_CELL = 12;
const BYTES_PER_LINE = 600;

interface Tracked {
  pane: Pane;
  recordId: string;
  anchor: ProcessRef;
  /** Forgets the session that created the pane, once its record is gone. */
  forgetLauncher: () => void;
  /** The delegation records from the top of the tree down to this pane's own: whose subtree it is in (visibility.ts). */
  lineage: readonly string[];
  /** A shell of the person's own: made by the owner with the user's environment, as a tmux window is. */
  personal: boolean;
  /** The stop of the pane's group, once begun (at its program's exit, or by kill): begun once, awaited by both. */
  stopped?: Promise<number[]>;
}

/** Who is asking: a session's principal (a refusal names its depth) and the delegation it acts for. */
type Asker = Pick<SessionState, "principal" | "delegation">;

/** Every pane of the daemon, by id (`%3`), name, or index. */
export class PaneTable {
  readonly #panes = new Map<string, Tracked>();
  #next = 0;

  constructor(private readonly host: PaneTableHost) {}

  get logger(): Logger {
    return this.host.logger;
  }

  /** `[mux]` of the daemon's configuration. */
  get #mux(): MuxConfig {
    return muxSection.read(this.host.config);
  }

  /** Is any pane's program still running? */
  get running(): boolean {
    return this.list().some((pane) => pane.info().status === "running");
  }

  /** Every pane, whoever made it: for the daemon itself (stop), never for a request. */
  list(): Pane[] {
    return [...this.#panes.values()].map((t) => t.pane);
  }

  /**
   * The panes `asker` may see and act on. The owner sees all; a delegate only
   * those in its own delegation's subtree: the pane it runs in and every pane
   * made from there, never a sibling's or the owner's own shells.
   */
  visibleTo(asker: Asker): Pane[] {
    return [...this.#panes.values()].filter((t) => sees(asker, t)).map((t) => t.pane);
  }

  /**
   * The pane `target` names (id `%3`, index, or name, in that order: as in
   * tmux, `-t 1` is the pane at index 1 even when another is named "1"), if
   * `asker` may act on it; else a clear refusal.
   */
  resolve(target: string, asker: Asker): Pane {
    const panes = this.list();
    const found =
      this.#panes.get(target)?.pane ??
      (/^\d+$/.test(target) ? panes.find((p) => p.spec.index === Number(target)) : undefined) ??
      panes.find((p) => p.name === target);
    const tracked = found && this.#panes.get(found.id);
    if (tracked && !sees(asker, tracked)) {
      throw new ProtocolError(
        ErrorCode.OwnerRequired,
        `refused: pane "${target}" belongs to another delegation; a delegate (depth ${asker.principal.depth}) acts only on its own pane and the panes made from it`,
        { path: ["target"] },
      );
    }
    if (!found) {
      const known =
        this.visibleTo(asker)
          .map((p) => `${p.id} ${p.name}`)
          .join(", ") || "none";
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: target: no pane "${target}" (panes: ${known})`, {
        path: ["target"],
      });
    }
    return found;
  }

  /**
   * What a new pane is, as `session` may have it. The owner's, and a new
   * window typed in one of the person's own shells, as asked (tmux habits);
   * any other delegate's is delegated, as the agent it descends from
   * (docs/security-model.md, "A delegate's new pane"): the allow-listed
   * environment and that agent's private home, never venom-mux's own
   * environment, HOME, or another agent's home.
   */
  launchAs(params: NewParams, session: SessionState): NewParams {
    if (session.principal.kind !== "delegate" || this.inPersonalShell(session)) return params;
    const agent = session.agent ?? DEFAULT_AGENT;
    if (params.agent !== undefined && params.agent !== agent) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `invalid params: agent: a delegate's pane runs as the agent it descends from (${agent}), never as another`,
        { path: ["agent"] },
      );
    }
    return { ...params, envPolicy: "delegated", agent };
  }

  /** A new pane, as launchAs made it; `gate` is the creating session's, which its delegates' relayed approvals will ask. */
  create(params: NewParams, session: SessionState, gate: ApprovalGate): Pane {
    const mux = this.#mux;
    if (this.#panes.size >= mux.max_panes) {
      throw new ProtocolError(ErrorCode.Busy, `busy: at most ${mux.max_panes} panes (mux.max_panes)`);
    }
    const { parentDepth, depth, maxDepth } = this.depthOf(params, session);
    this.#assertScreenBudget(params.cols, params.rows);
    if (params.name) this.assertNameFree(params.name);
    for (const key of Object.keys(params.env ?? {})) {
      if (key.startsWith("VENOM_")) {
        throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: env.${key}: Venom's own variables cannot be set`, {
          path: ["env", key],
        });
      }
    }
    const cwd = this.#cwd(params.cwd ?? session.workspace, session.workspace);
    // The id is taken only once the pane starts: a refused `new` uses no id, as in tmux.
    const serial = this.#next;
    const id = `%${serial}`;
    const index = this.#freeIndex(mux.base_index);
    const recordId = `mux-${this.host.instance.slice(0, 8)}-${serial}`;
    const parent = `${this.host.instance}/${recordId}`;
    const env = refusedAsProtocolError(() => this.#env(params, parent, parentDepth, maxDepth));
    const argv = params.argv ?? [process.env.SHELL || "/bin/sh"];
    if (!resolvesToProgram(argv[0] as string, env.PATH ?? "", cwd)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: argv.0: no such program: ${argv[0]}`, { path: ["argv", "0"] });
    }
    const { sandbox, ...confined } = this.#confined(session, cwd, argv, env, params);
    this.#next = serial + 1;
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
        scrollback: mux.scrollback_lines,
        allowClipboard: mux.allow_clipboard,
        mode: params.mode,
        record: recordPath(this.host.home, recordId),
        ...confined,
      },
      (ended) => void this.#ended(ended),
    );
    // node-pty (or child_process, for a pipe pane) collects its own child; the daemon's reaper must leave it alone until then.
    const released = spawnedChild(pane.pid);
    void pane.exited().then(released);
    // Both start the program as a session leader: its pid is its process group.
    const startTime = processStat(pane.pid)?.startTime ?? 0;
    const anchor = { pid: pane.pid, startTime };
    const forgetLauncher = this.host.launchers.add(recordId, { name: pane.name, grant: session.grant, gate });
    const personal = session.principal.kind === "owner" && params.envPolicy === "inherit";
    const lineage = [...lineageOf(session, this.#panes.values()), recordId];
    this.#panes.set(id, { pane, recordId, anchor, forgetLauncher, lineage, personal });
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
      sandbox,
      ...(params.envPolicy === "delegated" ? { agent: params.agent ?? DEFAULT_AGENT } : {}),
      createdAt: pane.createdAt,
    });
    this.host.logger.info({ pane: id, pid: pane.pid, depth, envPolicy: params.envPolicy }, "pane created");
    return pane;
  }

  /** tmux's window index: the lowest one from mux.base_index that no pane (running or exited) holds. */
  #freeIndex(base: number): number {
    const taken = new Set(this.list().map((pane) => pane.spec.index));
    let index = base;
    while (taken.has(index)) index++;
    return index;
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

  /**
   * Under the delegation's own confinement (when a confined delegate asks, or
   * the caller names one in `confinedAs`) and with sandbox.mode = "landlock",
   * narrowed to `writableOnly` when the caller names it:
   * the launcher to spawn instead, HOME and TMPDIR in
   * $VENOM_HOME/agents/<agent or "pane"> (the delegation's when it is
   * confined); and the layers, for the pane's record.
   */
  #confined(
    session: SessionState,
    cwd: string,
    argv: string[],
    env: Record<string, string>,
    { agent = DEFAULT_AGENT, confinedAs, writableOnly }: NewParams,
  ) {
    const inherited = session.confinement && [...session.confinement, ...this.#layersOf(confinedAs)];
    return refusedAsProtocolError(() => {
      const sandbox = sandboxFor(
        session.config,
        {
          workspace: session.workspace,
          cwd,
          home: join(this.host.home.agents, agent),
          records: this.host.home.delegations,
          path: env.PATH,
          writableOnly,
        },
        agent,
        inherited,
      );
      // node-pty sets PWD for a program it starts itself; the launcher passes env on exactly, so PWD is set here.
      return sandbox ? { launch: sandboxedCommand(sandbox, argv, { ...env, PWD: cwd }), sandbox } : { sandbox: [] };
    });
  }

  /** The layers of the record `confinedAs` names (none when it names none). */
  #layersOf(confinedAs: string | undefined): readonly SandboxProfile[] {
    if (confinedAs === undefined) return [];
    const record = findRecord(this.host.home, confinedAs);
    if (record === null) {
      throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: confinedAs: no delegation record ${JSON.stringify(confinedAs)}`, {
        path: ["confinedAs"],
      });
    }
    return record.sandbox;
  }

  #env(params: NewParams, parent: string, parentDepth: number, maxDepth: number): Record<string, string> {
    if (params.envPolicy === "delegated") {
      const agent = params.agent ?? DEFAULT_AGENT;
      const agents = agentsOf(this.host.config);
      const stateVar = params.stateVar ?? agents[agent]?.state_var;
      // An allow-list: the base set from the daemon's environment plus the caller's env, from which
      // no key, credential, HOME or marker gets through.
      return {
        ...delegatedEnv({
          base: daemonEnv(),
          extra: params.env ?? {},
          // From the user's own configuration, never from the caller: a delegate cannot name values here.
          own: agents[agent]?.env ?? {},
          home: this.host.home,
          agent,
          ...(stateVar ? { stateVar } : {}),
          // Every agent's credential, endpoint and state variables (conformance/spec/security-model.txt, "Tool rules"): venom-orch's adapters read the same list.
          declaredVars: everyDeclaredVar(agents),
          parent,
          parentDepth,
          maxDepth,
        }),
        TERM: "xterm-256color",
      };
    }
    // inherit: the daemon's environment, as tmux gives its server's, with this pane's markers.
    const env = daemonEnv();
    delete env[MARKER_PARENT];
    delete env[MARKER_DEPTH];
    return { ...env, ...params.env, TERM: "xterm-256color", ...childMarkers(parent, parentDepth) };
  }

  /** A pane's program ended: stop what it left in its group, drop its record, keep its status for wait and ls. */
  async #ended(pane: Pane): Promise<void> {
    const tracked = this.#panes.get(pane.id);
    if (!tracked) return;
    tracked.stopped ??= this.#stopGroup(tracked);
    await tracked.stopped;
    removeRecord(this.host.home, tracked.recordId);
    tracked.forgetLauncher();
    this.host.logger.info({ pane: pane.id, exitCode: pane.exitCode, signal: pane.signal }, "pane exited");
    this.host.paneEnded?.();
  }

  /** HUP and TERM to the pane's whole process group (through pidfds), KILL after 2 s to whatever remains. */
  async #stopGroup(tracked: Tracked): Promise<number[]> {
    const { anchor } = tracked;
    // HUP first, as a terminal that goes away sends it (interactive shells ignore TERM but end on HUP), then TERM.
    const hung = signalGroup(anchor.pid, anchor, "SIGHUP");
    // No live member was left to signal (the common case once the program has exited): nothing to wait for or kill.
    if (hung.length === 0) return [];
    const signalled = [...hung, ...signalGroup(anchor.pid, anchor, "SIGTERM")];
    // While the leader lives the group is not empty: one stat read a poll, not a scan of /proc (200 panes stopping at once
    // scanned /proc 200 times every 25 ms).
    const empty = () => !isRunning(anchor) && verifiedMembers(anchor.pid, anchor).length === 0;
    await waitUntil(empty, Date.now() + CANCEL_GRACE_MS);
    const killed = await killGroup(anchor.pid, anchor);
    // Orphans adopted by this daemon (subreaper) are reaped here; the leader belongs to node-pty.
    reapAdopted([...signalled, ...killed].filter((pid) => pid !== anchor.pid));
    return [...new Set([...signalled, ...killed])];
  }

  /** Kill a pane: its whole group ends, and it leaves the table. */
  async kill(pane: Pane): Promise<void> {
    const tracked = this.#panes.get(pane.id);
    if (!tracked) return;
    // A pane whose program has exited had its group stopped then: that stop is awaited, not scanned for again.
    tracked.stopped ??= this.#stopGroup(tracked);
    await tracked.stopped;
    await Promise.race([pane.exited(), new Promise((r) => setTimeout(r, CANCEL_GRACE_MS))]);
    removeRecord(this.host.home, tracked.recordId);
    tracked.forgetLauncher();
    this.#panes.delete(pane.id);
    pane.dispose();
  }

  /**
   * Detach a viewer. When the pane had taken its size, it takes the size of
   * the latest viewer still attached (as tmux recalculates a window's size
   * when a client detaches), and the viewers left are drawn again at it; a
   * size over the screen budget is left as it is.
   */
  detach(pane: Pane, attachment: string): boolean {
    if (!pane.detach(attachment)) return false;
    const size = pane.latestViewerSize();
    if (!size || (size.cols === pane.cols && size.rows === pane.rows)) return true;
    try {
      this.resize(pane, size.cols, size.rows);
    } catch (error) {
      if (error instanceof ProtocolError) return true;
      throw error;
    }
    pane.redrawViewers();
    return true;
  }

  /** Resize a pane's screen model and pty, within the screen memory budget. */
  resize(pane: Pane, cols: number, rows: number): void {
    this.#assertScreenBudget(cols, rows, pane);
    pane.resize(cols, rows);
  }

  /** Estimated bytes of a screen with its scrollback. */
  #screenBytes(cols: number, rows: number): number {
    return (rows + this.#mux.scrollback_lines) * (cols * BYTES_PER_CELL + BYTES_PER_LINE);
  }

  /** Refuse a screen of cols x rows (new, or replacing `resized`'s) that would take every pane's screens over the budget. */
  #assertScreenBudget(cols: number, rows: number, resized?: Pane): void {
    const budget = this.#mux.max_screen_memory_mb * 1024 * 1024;
    const others = this.list()
      .filter((pane) => pane !== resized)
      .reduce((sum, pane) => sum + this.#screenBytes(pane.info().cols, pane.info().rows), 0);
    const wanted = this.#screenBytes(cols, rows);
    if (others + wanted > budget) {
      const mib = (bytes: number) => Math.ceil(bytes / (1024 * 1024));
      throw new ProtocolError(
        ErrorCode.Busy,
        `busy: a ${cols}x${rows} screen with ${this.#mux.scrollback_lines} lines of scrollback needs about ${mib(wanted)} MiB; panes already use about ${mib(others)} of ${this.#mux.max_screen_memory_mb} MiB (mux.max_screen_memory_mb)`,
      );
    }
  }

  /**
   * The depth a new pane would run at; past agent.max_delegation_depth it is
   * refused (-32004) before anyone is asked and before anything starts.
   */
  depthOf(params: NewParams, session: SessionState) {
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
    return { parentDepth, depth, maxDepth };
  }

  /**
   * Whether a delegate's nearest recorded ancestor is one of the person's own
   * shells (tmux habits: a new window typed there needs nobody's approval).
   * Anything an agent's pane, a tool's process or a delegate's pane starts asks.
   */
  inPersonalShell(session: SessionState): boolean {
    const record = ancestorRecord(session);
    return [...this.#panes.values()].some((t) => t.recordId === record && t.personal);
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
