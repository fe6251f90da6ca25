import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, closeSync, lstatSync, realpathSync, type Stats, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { closeOnExecAboveStderr, setChildSubreaper, setNotDumpable } from "@venom/native";
import { type Decorator, Dispatcher, ErrorCode, ProtocolError, parseMarkers, Snapshot, type ToolDefinition } from "@venom/proto";
import { reapStraysOnSigchld, spawnedChild } from "./adopted.js";
import type { Config } from "./config.js";
import { type AppMethod, Connection, type ConnectionHost } from "./connection.js";
import { type DelegationOwner, findAncestorRecord, listRecords, reapOrphans } from "./delegations.js";
import { UnsafeHomeError, type VenomHome } from "./home.js";
import { type CallLog, callLog, createLogger, type Logger } from "./log.js";
import { checkPeer, type PeerFacts } from "./peer.js";
import { openPrivateAppend } from "./private-files.js";
import { processStat } from "./proc.js";
import { LauncherTable, RelayLinks, type RelayParams } from "./relay.js";
import { sandboxNotices } from "./sandbox/launch.js";
import type { HelloContext, SessionLink, SessionState, Transport } from "./session.js";
import { answers } from "./socket-probe.js";
import { withStartLock } from "./start-lock.js";

/**
 * What a daemon does to itself before it serves (docs/security-model.md,
 * "Descriptors"): no process it starts inherits an fd it holds, and another
 * process of its user reads neither its memory, environment nor fds.
 */
function guardProcess(): void {
  setNotDumpable();
  closeOnExecAboveStderr();
}

/** What an app brings to the runtime: its tools, its containment, its own methods. */
export interface AppDefinition<Context> {
  /** The app's name (APP_NAME): its socket is $VENOM_HOME/state/NAME.sock, its log logs/NAME.log. */
  app: string;
  server: { name: string; version: string };
  /** Where owner-only methods must be run from, said when a delegate is refused (default: outside the server's delegated processes). */
  outside?: string;
  tools: readonly ToolDefinition<any, Context>[];
  /** Containment decorators: they run after the approval gate and may deny before execution. */
  decorators?: readonly Decorator<Context>[];
  /** The app's own methods (`pane/*`, `agent/*`), built once the daemon exists. */
  methods?(daemon: Daemon<Context>): Readonly<Record<string, AppMethod<Context>>>;
  /** What the app adds to `status` notices (e.g. jobs a crash interrupted). */
  notices?(): string[];
  /**
   * The app's long-lived work beyond calls and relays, which a restart --when-idle waits for (venom-mux: a pane whose
   * program runs; venom-orch: a running job); call Daemon.checkIdle when it ends.
   */
  busy?(): boolean;
  /** Runs first when the daemon stops, e.g. to end every pane. */
  beforeStop?(): Promise<void>;
  /** What tools see of a session (e.g. its workspace opened as a directory fd), and how to reach its client. */
  createContext(state: SessionState, daemon: Daemon<Context>, link: SessionLink): Context;
  /** Release what createContext took, when the session's connection closes. */
  disposeContext?(context: Context): void;
}

export interface DaemonOptions {
  home: VenomHome;
  /** The daemon's workspace: sessions that name none get this one. */
  workspace: string;
  config: Config;
}

/** Connections of delegates (and of peers not yet known to be the owner) at once, at most. */
const MAX_CONNECTIONS = 128;
/**
 * Slots beyond MAX_CONNECTIONS that only a peer with no delegation evidence
 * (no markers in its environment, no recorded ancestor) may take: delegates
 * holding every ordinary slot cannot lock the owner out of status and stop,
 * and the owner's own connections leave the ordinary slots to delegates.
 * venom-orch holds one to venom-mux per running job (200 background agents
 * are 200 connections); another daemon's relayed questions share one
 * connection to this one however many wait (relay.ts, RelayLinks).
 */
const OWNER_RESERVE = 512;

/**
 * A venom/1 daemon: one socket at $VENOM_HOME/state/<app>.sock (0600 in a 0700
 * directory), peers checked before any byte is read, one dispatcher for every tool.
 */
export class Daemon<Context> implements ConnectionHost<Context> {
  readonly instance = randomUUID();
  readonly logger: Logger;
  readonly logCall: CallLog;
  readonly dispatcher: Dispatcher<Context>;
  readonly snapshot: Snapshot;
  readonly workspace: string;
  readonly frameLimit: number;
  readonly appMethods: Readonly<Record<string, AppMethod<Context>>>;
  /** This daemon as the owner of delegation records: they are orphans once it is gone. */
  readonly owner: DelegationOwner;
  /** The sessions that launched this daemon's delegations: where their delegates' approvals go. */
  readonly launchers = new LauncherTable();
  /** The connections its delegates' questions are relayed over, to the daemons that own their delegations. */
  readonly relayLinks: RelayLinks;
  readonly #connections = new Set<Connection<Context>>();
  readonly #started = Date.now();
  #server: Server | null = null;
  #activeCalls = 0;
  #restartWhenIdle = false;
  #relaysWaiting = 0;
  #stopping: Promise<void> | null = null;
  readonly #stopped: Promise<void>;
  #markStopped!: () => void;

  constructor(
    private readonly definition: AppDefinition<Context>,
    private readonly options: DaemonOptions,
  ) {
    options.home.ensure();
    this.logger = createLogger(options.home, definition.app);
    this.logCall = callLog(this.logger);
    this.snapshot = new Snapshot(definition.tools);
    this.dispatcher = new Dispatcher(definition.decorators ?? []);
    this.workspace = realpathSync(options.workspace);
    this.frameLimit = options.config.protocol.max_frame_bytes;
    const stat = processStat(process.pid);
    this.owner = { instance: this.instance, app: definition.app, pid: process.pid, startTime: stat?.startTime ?? 0 };
    this.relayLinks = new RelayLinks(options.home, definition.server);
    this.appMethods = definition.methods?.(this) ?? {};
    this.#stopped = new Promise((resolve) => {
      this.#markStopped = resolve;
    });
  }

  get app(): string {
    return this.definition.app;
  }
  get server(): { name: string; version: string } {
    return this.definition.server;
  }

  get outside(): string {
    return this.definition.outside ?? `a terminal outside ${this.definition.server.name}'s delegated processes`;
  }
  get home(): VenomHome {
    return this.options.home;
  }
  get socketPath(): string {
    return this.options.home.socket(this.definition.app);
  }
  /** Resolves once the daemon has stopped, for whatever reason. */
  get stopped(): Promise<void> {
    return this.#stopped;
  }

  async listen(): Promise<void> {
    // First, before any await: the native bindings load here (loaded after the stale-socket probe below,
    // koffi failed to find its own native module on this machine).
    guardProcess();
    setChildSubreaper();
    const path = this.socketPath;
    this.#server = await withStartLock(path, () => this.#takeSocket(path));
    this.logger.info({ workspace: this.workspace, instance: this.instance }, "listening");
  }

  /** A stale socket removed, a crashed predecessor's orphans reaped, then listening: under the start lock. */
  async #takeSocket(path: string): Promise<Server> {
    const existing = lstatIfAny(path);
    if (existing) {
      // Only a socket is probed: a planted symlink could lead the probe to somebody else's socket.
      if (!existing.isSocket()) throw new UnsafeHomeError(`${path}: refused: something other than a socket is there; remove it`);
      if (await answers(path)) throw new Error(`a ${this.definition.server.name} daemon is already running on ${path}`);
      unlinkSync(path);
    }
    reapStraysOnSigchld();
    // Processes a crashed predecessor left running are stopped before anything new starts.
    for (const orphan of await reapOrphans(this.options.home)) {
      this.logger.warn(
        { record: orphan.id, terminated: orphan.terminated.length, killed: orphan.killed.length },
        "reaped orphaned delegation",
      );
    }
    const server = createServer({ pauseOnConnect: true }, (socket) => this.#accept(socket));
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(path, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    chmodSync(path, 0o600);
    return server;
  }

  /** One session over a pair of streams (stdio): handshake required, no management. */
  serveStdio(input: Readable, output: Writable): Promise<void> {
    guardProcess();
    // A stdio daemon is its client's child: whatever confines the client confines it and all it starts.
    const peer: PeerFacts = { pid: process.ppid, uid: process.getuid?.() ?? -1, environ: parseMarkers(process.env), noNewPrivs: false };
    return new Promise((resolve) => {
      this.#open("stdio", peer, input, output, resolve);
    });
  }

  #accept(socket: Socket): void {
    let check: ReturnType<typeof checkPeer>;
    try {
      check = checkPeer(socket);
    } catch {
      check = { ok: false, reason: "peer credentials unavailable" };
    }
    if (!check.ok) {
      this.logger.warn({ reason: check.reason }, "connection refused");
      socket.destroy();
      return;
    }
    const owners = this.#ownerConnections();
    const limit = this.#mayBeOwner(check.peer, owners) ? MAX_CONNECTIONS + OWNER_RESERVE : MAX_CONNECTIONS;
    if (this.#connections.size - (limit === MAX_CONNECTIONS ? owners : 0) >= limit || this.#stopping) {
      const error = new ProtocolError(
        ErrorCode.Busy,
        this.#stopping ? "busy: the daemon is stopping" : `busy: at most ${limit} connections`,
      );
      socket.end(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: error.toObject() })}\n`);
      return;
    }
    this.#open("socket", check.peer, socket, socket, () => undefined);
    socket.resume();
  }

  /**
   * Only looked at once the ordinary slots are full (those not held by the owner's sessions): no delegation marker
   * in its environment and no recorded ancestor.
   */
  #mayBeOwner(peer: PeerFacts, owners: number): boolean {
    if (this.#connections.size - owners < MAX_CONNECTIONS) return false;
    return peer.environ.depth === 0 && findAncestorRecord(this.options.home, peer.pid) === null;
  }

  /** Open connections whose session is the owner's (said at hello): they do not hold ordinary slots. */
  #ownerConnections(): number {
    let owners = 0;
    for (const connection of this.#connections) if (connection.owner) owners++;
    return owners;
  }

  #open(transport: Transport, peer: PeerFacts, input: Readable, output: Writable, onClosed: () => void): void {
    const connection: Connection<Context> = new Connection(this, transport, peer, input, output, () => {
      this.#connections.delete(connection);
      onClosed();
    });
    this.#connections.add(connection);
  }

  /**
   * What the server observed about a peer beyond its environment: whether it,
   * or any ancestor, is a process recorded in one of this instance's delegation
   * records. That catches `env -i venom-echo stop` run inside a delegated process.
   */
  helloContext(transport: Transport, peer: PeerFacts): HelloContext {
    const base = {
      app: this.definition.app,
      transport,
      peer,
      snapshot: this.snapshot,
      config: this.options.config,
      workspace: this.workspace,
    };
    const record = findAncestorRecord(this.options.home, peer.pid);
    if (!record) {
      // A process that left its process tree keeps its environment: it names its delegation, after its ancestry (session.ts, Delegation).
      const named = peer.environ.parent === null ? undefined : listRecords(this.options.home).find((r) => r.parent === peer.environ.parent);
      return { ...base, observed: [], ...(named ? { environRecord: named.id } : {}) };
    }
    // Tool names belong to the daemon that recorded the grant: another daemon's
    // grant narrows only the policy and auto-approval, which mean the same everywhere.
    const sameDaemon = record.owner.instance === this.instance;
    return {
      ...base,
      observed: [{ markers: { depth: record.depth, parent: record.parent }, evidence: "ancestry" }],
      record,
      parentWorkspace: record.workspace,
      parentGrant: sameDaemon ? record.grant : { ...record.grant, tools: [...this.snapshot.names] },
    };
  }

  createContext(state: SessionState, link: SessionLink): Context {
    return this.definition.createContext(state, this, link);
  }

  /** A delegate's approval relayed to us by a daemon of this instance (or by ourselves). */
  async relayed(params: RelayParams, signal: AbortSignal): Promise<"approve" | "deny"> {
    this.logger.info({ record: params.record, tool: params.request.tool, depth: params.depth }, "approval relayed");
    // A delegate waits for this answer: a restart would deny it for nobody's reason.
    this.#relaysWaiting++;
    try {
      return await this.launchers.answer(params, signal);
    } finally {
      this.#relaysWaiting--;
      this.checkIdle();
    }
  }

  disposeContext(context: Context): void {
    this.definition.disposeContext?.(context);
  }

  status() {
    return {
      server: this.definition.server,
      instance: this.instance,
      pid: process.pid,
      uptimeSeconds: Math.round((Date.now() - this.#started) / 1000),
      workspace: this.workspace,
      connections: this.#connections.size,
      activeCalls: this.#activeCalls,
      notices: [...sandboxNotices(this.options.config), ...(this.definition.notices?.() ?? [])],
    };
  }

  callStarted(): void {
    this.#activeCalls++;
  }
  callFinished(): void {
    this.#activeCalls--;
    this.checkIdle();
  }

  /** The one idleness of every daemon: no call running, no relayed approval waiting for its answer, and no work the app counts as busy. */
  get idle(): boolean {
    return this.#activeCalls === 0 && this.#relaysWaiting === 0 && !this.definition.busy?.();
  }

  /** A pending restart --when-idle happens once the daemon is idle; apps call this when their own work ends. */
  checkIdle(): void {
    if (this.#restartWhenIdle && this.idle) {
      this.#restartWhenIdle = false;
      void this.#restartNow();
    }
  }

  restart(whenIdle: boolean): void {
    this.logger.info({ whenIdle }, "restart requested");
    if (whenIdle && !this.idle) this.#restartWhenIdle = true;
    else void this.#restartNow();
  }

  /** Restart into the program installed at this daemon's own path, with the same arguments. */
  async #restartNow(): Promise<void> {
    await this.stop();
    // Its stderr goes where `start` puts a daemon's, so a new daemon that cannot come up leaves a trace that `restart` names.
    const stderr = openPrivateAppend(join(this.options.home.logs, `${this.definition.app}.stderr`));
    try {
      const child = spawn(process.execPath, process.argv.slice(1), {
        detached: true,
        stdio: ["ignore", "ignore", stderr],
        env: process.env,
      });
      if (child.pid !== undefined) child.once("exit", spawnedChild(child.pid));
      child.unref();
    } finally {
      closeSync(stderr);
    }
  }

  /** Stop accepting, cancel every call, close every connection, remove the socket. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.logger.info("stopping");
      await this.definition.beforeStop?.();
      const server = this.#server;
      this.#server = null;
      const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      for (const connection of this.#connections) connection.rpc.close();
      await closed;
      // Only a daemon that bound the socket removes it: a stdio session must never unlink a live daemon's socket.
      if (server) {
        try {
          unlinkSync(this.socketPath);
        } catch {
          // Already gone: nothing to remove.
        }
      }
      this.logger.info("stopped");
      this.#markStopped();
    })();
    return this.#stopping;
  }
}

function lstatIfAny(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
