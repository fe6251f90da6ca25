import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { StopReason } from "@agentclientprotocol/sdk";
import {
  type ApprovalGate,
  type ApprovalRequest,
  askApproval,
  cutMiddle,
  fitEncoded,
  type Grant,
  hostLabel,
  type InboxDetailsResultSchema,
  type PaneInfo,
  parseMarkers,
  policyDecision,
  terminalLine,
  terminalSafe,
} from "@venom/proto";
import {
  type Actor,
  ancestorRecord,
  answers,
  type ClientOptions,
  type Delegation,
  executableOf,
  isGone,
  isWithin,
  type Logger,
  launcherPrograms,
  lineageOf,
  listRecords,
  PENDING_LIMIT,
  processStat,
  sees,
  startDaemon,
  VenomClient,
  type VenomHome,
} from "@venom/runtime";
import type { z } from "zod";
import { untilAborted } from "./abort.js";
import { PaneStdio } from "./acp/pane-stdio.js";
import { type Adapter, muxMain } from "./adapters.js";
import type { ApprovalHistory } from "./history.js";
import type { HostConfig } from "./host-config.js";
import { dialHost, type HostLink, hostUnreachable } from "./host-link.js";
import { type Inbox, type InboxQuestion, NotWaiting, type QuestionExtras, type Settled } from "./inbox.js";
import { FINAL_STATES, type JobRecord, JobStore } from "./jobs.js";
import type { Notifier } from "./notify.js";
import { createWorktree, followBranch, type Worktree, worktreeChanges, worktreeWritable } from "./worktree.js";

/** Who launched a job, and how to reach them while it runs. */
export interface Launcher {
  depth: number;
  /** The delegation it acts for (null for the owner): its jobs' lineage, and by ancestry their agents' confinement. */
  delegation: Delegation | null;
  grant: Grant;
  /** The launching session's gate: the person's, or the relay one level up for a delegate. */
  gate: ApprovalGate;
  notify(method: string, params: unknown): void;
  workspace: string;
}

export interface LaunchRequest {
  adapter: Adapter;
  argv: string[];
  /** The prompt as given (the inbox's details show it). */
  prompt: string;
  cwd: string;
  background: boolean;
  timeoutSeconds: number;
  /** Values of the adapter's env_pass from venom-orch's own environment. */
  env: Record<string, string>;
  launcher: Launcher;
  /**
   * What venom-orch's configuration says of confinement (sandboxNotices): venom-mux, which
   * confines the agent's pane by its own configuration, must say the same in its hello.
   */
  confinement: readonly string[];
  /** Set when the agent speaks ACP: the prompt goes over the protocol in a pipe pane, not in argv. */
  acp?: { prompt: string; maxMessageBytes: number };
  /** Run it in a git worktree of its own (worktree.ts), on `branch` or venom/LABEL. */
  worktree?: { branch?: string | undefined };
  /** Run it on another host (docs/remote.md): its venom-mux, reached through the host's transport. */
  host?: { name: string; config: HostConfig };
}

/** How a job ended, for the tool result: the exit code and a bounded tail of its screen (untrusted). */
export interface JobOutcome {
  job: JobRecord;
  tail: string;
}

interface LiveJob {
  record: JobRecord;
  launcher: Launcher;
  prompt: string;
  controller: AbortController;
  done: Promise<JobOutcome>;
  /** Its pane once made, and the connection it lives on: the inbox's details read its last lines. */
  pane?: { client: VenomClient; id: string };
}

/** Where the person's questions go, and what is kept of them (docs/venom-orch.md, "The inbox"). */
export interface PersonLink {
  inbox: Inbox;
  history: ApprovalHistory;
  notifier: Notifier;
  /** approval.wait_seconds: a question nobody answers is denied after this long. */
  waitSeconds: number;
}

/** Lines of a job's pane the inbox's details show. */
const DETAIL_LINES = 20;
const PROMPT_SHOWN = 4096;

const TAIL_LINES = 2000;
const TAIL_BYTES = 16 * 1024;
/** How long a launch may take to show its argv in /proc before it counts as not launched as asked. */
const EXEC_WAIT_MS = 5_000;
/** How often /proc is read meanwhile: the fork and Venom's launchers take a few milliseconds. */
const EXEC_POLL_MS = 2;
/** How long after an ACP agent's connection fails its pane's exit still counts as the cause (venom-mux reports it after reaping it). */
const EXIT_AFTER_CLOSE_MS = 2_000;

/** A finished ACP turn's job state by its stop reason (a cancelled turn takes its stop's: cancelled or timeout); any other is failed. */
const ACP_STATES: Partial<Record<StopReason, JobRecord["state"]>> = { end_turn: "done", refusal: "declined" };

/** Why a job's signal was aborted. */
class JobStop extends Error {
  constructor(readonly state: "cancelled" | "timeout") {
    super(state);
  }
}

/**
 * Runs delegated agents in venom-mux panes, one venom/1 connection to venom-mux
 * per job: the pane is bound to that connection (it ends if venom-orch dies),
 * and venom-mux relays the approvals of the pane's delegates over it to us,
 * and we to the session that launched the job.
 */
export class Orchestrator {
  readonly #jobs = new Map<string, LiveJob>();
  readonly #store: JobStore;
  /** Jobs a previous venom-orch left running: venom-mux stopped their panes when it died. */
  readonly interrupted: JobRecord[];
  #muxStarting: Promise<void> | null = null;
  /** Every job name on file or given since: read once, so a launch does not read and parse every job file to pick one. */
  readonly #names: Set<string>;

  constructor(
    private readonly home: VenomHome,
    private readonly workspace: string,
    private readonly server: { name: string; version: string },
    private readonly logger: Logger,
    /** A job ended: the daemon may now be idle (a restart --when-idle waits for every job, runtime daemon.ts). */
    private readonly jobEnded: () => void,
    private readonly person: PersonLink,
  ) {
    this.#store = new JobStore(home);
    const previous = this.#store.load();
    this.interrupted = previous
      .filter((job) => !FINAL_STATES.includes(job.state))
      .map((job) => ({
        ...job,
        // A host's job lost its bridge with venom-orch: as when the bridge dies under a running venom-orch (docs/remote.md, "Failure").
        ...(job.host !== null
          ? {
              state: "failed" as const,
              note: `host ${job.host} unreachable: venom-orch ended while this job ran; the remote venom-mux stopped its pane`,
            }
          : { state: "cancelled" as const, note: "venom-orch ended while this job ran; venom-mux stopped its pane" }),
        endedAt: new Date().toISOString(),
      }));
    for (const job of this.interrupted) void this.#keep(job);
    this.#store.prune(previous);
    this.#names = new Set(previous.map((job) => job.name));
  }

  /** The jobs on file and running that `viewer` may see (packages/runtime/src/visibility.ts). */
  list(viewer: Actor): JobRecord[] {
    return this.#all().filter((job) => sees(viewer, job));
  }

  /** Every job on file and running. */
  #all(): JobRecord[] {
    const all = new Map(this.#store.load().map((job) => [job.id, job]));
    // A running job is listed as it is now, and so may be cancelled, even when its file is not yet written or cannot be read back.
    for (const { record } of this.#jobs.values()) all.set(record.id, record);
    return [...all.values()];
  }

  /** A running job, without a worktree of its own, whose cwd is in the checkout rooted at `repo`. */
  runningIn(repo: string): JobRecord | undefined {
    return [...this.#jobs.values()].map((j) => j.record).find((r) => r.worktree === null && isWithin(repo, r.cwd));
  }

  /** Put a changed record on file (a worktree merged or removed). */
  async keep(record: JobRecord): Promise<void> {
    await this.#keep(record);
  }

  /** Is any job still running? */
  get running(): boolean {
    return this.#jobs.size > 0;
  }

  /** Cancel a running job this session may see; false when there is none by that id or name. */
  cancel(target: string, viewer: Actor): JobRecord | null {
    const visible = new Set(this.list(viewer).map((j) => j.id));
    const live = [...this.#jobs.values()].find((j) => (j.record.id === target || j.record.name === target) && visible.has(j.record.id));
    if (!live) return null;
    live.controller.abort(new JobStop("cancelled"));
    return live.record;
  }

  /** Cancel the background jobs launched by a delegate session that is closing. */
  cancelLaunchedBy(launcher: Launcher): void {
    for (const job of this.#jobs.values()) if (job.launcher === launcher) job.controller.abort(new JobStop("cancelled"));
  }

  /** Stop everything (the daemon is stopping). */
  async stopAll(): Promise<void> {
    const running = [...this.#jobs.values()];
    for (const job of running) job.controller.abort(new JobStop("cancelled"));
    await Promise.allSettled(running.map((j) => j.done));
    await this.#store.flush();
  }

  /** Start a job; `done` settles when it ended, whatever the reason. Foreground callers pass their call's signal. */
  start(request: LaunchRequest, signal?: AbortSignal): LiveJob {
    const { adapter, launcher } = request;
    const record: JobRecord = {
      id: randomBytes(6).toString("hex"),
      name: this.#nextName(adapter.name),
      agent: adapter.name,
      cwd: request.cwd,
      state: "starting",
      background: request.background,
      launcher: { depth: launcher.depth },
      lineage: lineageOf(launcher, this.#all()),
      pid: null,
      exitCode: null,
      signal: null,
      startedAt: new Date().toISOString(),
      endedAt: null,
      note: null,
      transport: request.acp ? "acp" : "cli",
      refusedRequests: 0,
      pending: null,
      host: request.host?.name ?? null,
      hostBase: null,
      worktree: null,
    };
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new JobStop("timeout")), request.timeoutSeconds * 1000);
    const onCallAbort = () => controller.abort(signal?.reason?.name === "CallDeadline" ? new JobStop("timeout") : new JobStop("cancelled"));
    signal?.addEventListener("abort", onCallAbort, { once: true });
    const live: LiveJob = {
      record,
      launcher,
      prompt: request.prompt,
      controller,
      done: Promise.resolve(null as unknown as JobOutcome),
    };
    this.#jobs.set(record.id, live);
    this.#update(live, { startedAt: record.startedAt });
    live.done = this.#run(live, request).finally(() => {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onCallAbort);
      this.#jobs.delete(record.id);
      this.jobEnded();
    });
    return live;
  }

  async #run(live: LiveJob, request: LaunchRequest): Promise<JobOutcome> {
    const { signal } = live.controller;
    let client: VenomClient | undefined;
    let pane: PaneInfo | undefined;
    const { host } = request;
    let link: HostLink | undefined;
    const stdio = request.acp ? new PaneStdio() : null;
    let cwd = request.cwd;
    // A confined agent in a worktree writes only it, its git entry and the objects (worktree.ts, worktreeWritable).
    let writableOnly: string[] | undefined;
    try {
      if (request.worktree) {
        const made = await createWorktree({
          cwd,
          workspace: request.launcher.workspace,
          label: live.record.name,
          branch: request.worktree.branch,
        });
        cwd = made.cwd;
        writableOnly = await worktreeWritable(made.worktree);
        this.#update(live, { worktree: { ...made.worktree, commits: [], stat: "", untracked: [], removed: false } });
      }
      const options: ClientOptions = {
        client: this.server,
        gate: (approval) => this.#relay(live, approval),
        onEvent: (method, params) => stdio?.onEvent(method, params),
      };
      // A host's venom-mux works in its own workspace (or the host's `workspace`): this one's is no path there.
      const connecting = host
        ? dialHost(host.name, host.config, options).then((made) => {
            link = made;
            return made.client;
          })
        : this.#connectMux({ ...options, workspace: request.launcher.workspace });
      // A connection made after a stop is nobody's: closed at once.
      connecting.then(
        (late) => signal.aborted && (link ? link.close() : late.close()),
        () => undefined,
      );
      client = await untilAborted(connecting, signal);
      stdio?.flowThrough(client);
      if (host) {
        // The job runs where the host's venom-mux works; that host's configuration confines it (docs/remote.md, "Who is trusted").
        const there = host.config.workspace ?? client.hello.workspace;
        if (!there) throw new Error(`host ${host.name}'s venom-mux has no workspace: set workspace in [hosts.${host.name}]`);
        cwd = there;
        // Where its changes start from, asked before the agent runs: `venom-orch diff` shows what it changed since.
        const { commit } = await client.request("repo/head", { cwd });
        this.#update(live, { cwd, hostBase: commit });
      }
      // venom-mux read config.toml when it started; a change since (an agent's sandbox turned on) is not yet its own.
      const { notices } = client.hello;
      if (!host && !request.confinement.every((notice) => notices.includes(notice))) {
        throw new Error(
          "refused: venom-mux does not confine as venom-orch's configuration says: it runs with the configuration it read when it started, before config.toml changed; restart it (venom-mux restart) and run again; nothing was started",
        );
      }
      // Its agent keeps the confinement of the record the launcher descends from (docs/security-model.md, Confinement).
      const confinedAs = host ? null : ancestorRecord(request.launcher);
      // A pane made after a stop is still ended: it lives as long as this connection, closed below.
      pane = await untilAborted(
        client.request("pane/new", {
          argv: request.argv,
          cwd,
          name: live.record.name,
          envPolicy: "delegated",
          agent: request.adapter.name,
          ...(request.adapter.stateVar ? { stateVar: request.adapter.stateVar } : {}),
          env: request.env,
          parentDepth: request.launcher.depth,
          ...(confinedAs ? { confinedAs } : {}),
          ...(writableOnly ? { writableOnly } : {}),
          lifetime: "connection",
          ...(stdio ? { mode: "pipe" as const } : {}),
          cols: 120,
          rows: 40,
        }),
        signal,
      );
      live.pane = { client, id: pane.id };
      // A host's pid and records are that host's: this machine's /proc and records say nothing of them.
      const paneRecord = host ? undefined : listRecords(this.home).find((r) => r.pid === pane?.pid)?.id;
      this.#update(live, { pid: pane.pid, ...(paneRecord ? { lineage: [...live.record.lineage, paneRecord] } : {}) });
      // A program that ended before it was seen running (its exec failed, or it was that quick) goes straight to its end.
      if (host || (await startedWithArgv(pane.pid, request.argv))) this.#update(live, { state: "running" });
      if (stdio && request.acp) return await this.#acpTurn(live, request, request.acp, client, pane, stdio);
      const ended = await untilAborted(client.request("pane/wait", { target: pane.id }), signal);
      const tail = await this.#tail(client, pane.id);
      const exitCode = ended.pane.exitCode;
      await this.#finish(live, {
        state: exitCode === 0 ? "done" : "failed",
        exitCode,
        signal: ended.pane.signal,
        endedAt: new Date().toISOString(),
      });
      return { job: live.record, tail };
    } catch (error) {
      const stop = signal.reason instanceof JobStop ? signal.reason.state : null;
      const tail = client && pane ? await this.#tail(client, pane.id).catch(() => "") : "";
      const note =
        stop === "timeout"
          ? `timed out after ${request.timeoutSeconds}s`
          : stop
            ? "cancelled"
            : host
              ? await hostUnreachable(host.name, error, link)
              : describe(error);
      await this.#finish(live, { state: stop ?? "failed", endedAt: new Date().toISOString(), note });
      return { job: live.record, tail };
    } finally {
      if (client && pane) await client.request("pane/kill", { target: pane.id }).catch(() => undefined);
      client?.close();
      link?.close();
      stdio?.end();
    }
  }

  /**
   * An ACP agent's one prompt turn (docs/venom-orch.md, "ACP agents"): its state and result come from
   * the protocol. `refusal` is declined; a stop (cancel, timeout) ends the turn
   * with session/cancel. The pane exiting first is a failure.
   */
  async #acpTurn(
    live: LiveJob,
    request: LaunchRequest,
    acp: NonNullable<LaunchRequest["acp"]>,
    client: VenomClient,
    pane: PaneInfo,
    stdio: PaneStdio,
  ): Promise<JobOutcome> {
    // Loaded for an ACP turn only: the SDK and its schemas cost every start of the daemon some 30-70 ms.
    const { runAcp, FrameLimitError } = await import("./acp/session.js");
    const { signal } = live.controller;
    const exited = client.request("pane/wait", { target: pane.id }).then((ended) => ended.pane);
    const turn = runAcp({
      name: live.record.name,
      workspace: request.launcher.workspace,
      // A host's job works where that host's venom-mux does (its record's cwd, set once connected).
      cwd: live.record.host !== null ? live.record.cwd : request.cwd,
      prompt: acp.prompt,
      fullModes: request.adapter.permissions === "full" ? (request.adapter.acp?.fullModes ?? []) : null,
      maxMessageBytes: acp.maxMessageBytes,
      stdio: { readable: stdio.readable, writable: stdio.writable(client, pane.id) },
      client: this.server,
      signal,
      ask: async (approval, acpCall) => (await this.#relay(live, approval, acpCall)) === "approve",
      refused: () => this.#update(live, { refusedRequests: live.record.refusedRequests + 1 }),
      // Not #update: a progress line changes nothing on file.
      progress: (line) => this.#notify(live, line),
    });
    let outcome: Awaited<typeof turn> | PaneInfo;
    try {
      outcome = await Promise.race([turn, exited]);
    } catch (error) {
      // An agent's stdout closes as it exits, so its connection fails a moment before venom-mux reports the exit:
      // an exit that follows at once is what happened, and its code is the job's.
      if (error instanceof FrameLimitError || signal.aborted) throw error;
      const ended = await Promise.race([exited.catch(() => null), new Promise<null>((r) => setTimeout(r, EXIT_AFTER_CLOSE_MS, null))]);
      if (!ended) throw error;
      outcome = ended;
    }
    if ("status" in outcome) {
      const how = outcome.signal ? `signal ${outcome.signal}` : `exit ${outcome.exitCode}`;
      const note = `the agent ended (${how}) before its turn did`;
      await this.#finish(live, {
        state: "failed",
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        endedAt: new Date().toISOString(),
        note,
      });
      return { job: live.record, tail: await this.#tail(client, pane.id) };
    }
    const stop = signal.reason instanceof JobStop ? signal.reason.state : null;
    const state = ACP_STATES[outcome.stopReason] ?? stop ?? "cancelled";
    const note =
      outcome.note ??
      (state === "failed"
        ? `the agent stopped: ${outcome.stopReason}`
        : state === "timeout"
          ? `timed out after ${request.timeoutSeconds}s`
          : null);
    await this.#finish(live, { state, endedAt: new Date().toISOString(), note });
    const reply = outcome.message || (await this.#tail(client, pane.id));
    return { job: live.record, tail: fitEncoded(reply, TAIL_BYTES, "tail") };
  }

  /**
   * A delegate in the job's pane needs approval: venom-mux relayed it to us
   * (or, for an ACP agent, it asked us itself). The launcher's policy answers
   * first, then its declared autoApprove; a delegate launcher relays it one
   * level up, where it reaches the person's inbox through the job that launched
   * it; for the owner's job the question waits in the inbox, and a foreground
   * job's terminal is asked at the same time: the first answer wins.
   */
  async #relay(live: LiveJob, asked: ApprovalRequest, acp?: QuestionExtras["acp"]): Promise<"approve" | "deny"> {
    const { launcher, record } = live;
    // A host's question is labelled with the host, in the one place every question of its job passes (docs/remote.md, "What a remote host can make you approve").
    const request = record.host === null ? asked : { ...asked, label: hostLabel(asked.label, record.host) };
    const fields = {
      job: record.id,
      name: record.name,
      label: request.label,
      tool: request.tool,
      risk: request.risk,
      summary: request.summary,
    };
    const early = policyDecision(launcher.grant.policy, request.risk);
    if (early !== "ask") return this.#decided(fields, { decision: early === "allow" ? "approve" : "deny", by: "policy" });
    // As before the inbox: a session that has a turn to be asked on is asked, whatever it declared.
    if (launcher.grant.autoApprove && (record.background || launcher.gate === null)) {
      // Approved for the launcher without asking anyone (run --yes): still told, as a question would have been.
      this.#update(live, {}, `${request.label} ${request.tool} approved without asking (autoApprove)`);
      return this.#decided(fields, { decision: "approve", by: "autoApprove" });
    }
    if (launcher.delegation !== null) return this.#relayUp(live, request);
    if (this.person.inbox.waitingFor(record.id) >= PENDING_LIMIT) {
      return this.#decided(fields, { decision: "deny", by: "job-bound" });
    }
    return this.#askPerson(live, request, fields, acp);
  }

  /** A delegate launched the job: its own gate relays the question up the chain (background or not). */
  async #relayUp(live: LiveJob, request: ApprovalRequest): Promise<"approve" | "deny"> {
    const { launcher, record } = live;
    this.#update(live, { state: "awaiting-approval", pending: `${request.label} ${request.tool}` }, `${request.label} ${request.tool}`);
    try {
      const outcome = await askApproval(launcher.grant, launcher.gate, request, live.controller.signal);
      this.logger.info({ job: record.id, tool: request.tool, allowed: outcome.allowed }, "relayed approval answered");
      return outcome.allowed ? "approve" : "deny";
    } finally {
      if (record.state === "awaiting-approval") this.#update(live, { state: "running", pending: null });
    }
  }

  /** The owner's job: the question waits in the inbox (and on a foreground job's terminal) until answered or a bound ends it. */
  async #askPerson(
    live: LiveJob,
    request: ApprovalRequest,
    fields: Omit<InboxQuestion, "id" | "askedAt">,
    acp: QuestionExtras["acp"],
  ): Promise<"approve" | "deny"> {
    const { launcher, record } = live;
    const { inbox, waitSeconds } = this.person;
    const { question, answered } = inbox.ask(fields, { prompt: live.prompt.slice(0, PROMPT_SHOWN), ...(acp ? { acp } : {}) });
    const waitingFor = `${request.label} ${request.tool}`;
    const first = record.state !== "awaiting-approval";
    this.#update(live, { state: "awaiting-approval", pending: waitingFor }, waitingFor);
    if (first) this.#notifyPerson(live, "awaiting-approval", waitingFor);
    const bound = setTimeout(() => {
      this.#settle(question.id, { decision: "deny", by: "wait-bound" });
      this.#update(live, { note: `${waitingFor}: denied, nobody answered within ${waitSeconds} s` });
    }, waitSeconds * 1000);
    // The launching terminal, when the job is its turn and it has one, is asked at the same time.
    const terminal = !record.background && launcher.gate !== null ? new AbortController() : null;
    if (terminal && launcher.gate) {
      launcher.gate({ ...request, questionId: question.id }, terminal.signal).then(
        (decision) => this.#settle(question.id, { decision, by: "terminal" }),
        // The terminal went away or was told the answer: the inbox still has the question.
        () => undefined,
      );
    }
    const settled = await answered;
    clearTimeout(bound);
    terminal?.abort();
    if (terminal && settled.by !== "terminal") {
      launcher.notify("approval/settled", { questionId: question.id, decision: settled.decision, by: settled.by });
    }
    this.person.history.append(question, settled);
    this.logger.info({ job: record.id, tool: request.tool, decision: settled.decision, by: settled.by }, "approval answered");
    if (record.state === "awaiting-approval") {
      const next = inbox.list().find((q) => q.job === record.id);
      this.#update(live, next ? { pending: `${next.label} ${next.tool}` } : { state: "running", pending: null });
    }
    return settled.decision;
  }

  /** Settle a question unless someone already did. */
  #settle(id: string, settled: Settled): void {
    try {
      this.person.inbox.answer(id, settled);
    } catch (error) {
      if (!(error instanceof NotWaiting)) throw error;
    }
  }

  /** A question settled without asking anyone: on record all the same. */
  #decided(fields: Omit<InboxQuestion, "id" | "askedAt">, settled: Settled): "approve" | "deny" {
    this.person.history.append({ ...fields, id: "", askedAt: new Date().toISOString() }, settled);
    return settled.decision;
  }

  /** The inbox's details of a waiting question: the job's prompt, the last lines of its pane, what it changed so far. */
  async details(id: string): Promise<z.infer<typeof InboxDetailsResultSchema>> {
    const { question, extras } = this.person.inbox.extras(id);
    const live = this.#jobs.get(question.job);
    const pane = live?.pane;
    const worktree = live?.record.worktree;
    const changes = worktree ? await changesOf(worktree).catch(() => null) : null;
    const paneTail = pane
      ? await pane.client
          .request("pane/capture", { target: pane.id, start: -DETAIL_LINES })
          .then((c) => c.text.replace(/\s+$/, "\n"))
          .catch(() => "")
      : "";
    return {
      question,
      prompt: extras.prompt,
      paneTail,
      ...(extras.acp ? { acp: extras.acp } : {}),
      ...(worktree && changes ? { worktree: { path: worktree.path, branch: worktree.branch, base: worktree.base, ...changes } } : {}),
    };
  }

  /** The person hears that a job waits for them or ended: the notify command (bells and counts come from the inbox's events). */
  #notifyPerson(live: LiveJob, event: "awaiting-approval" | "ended", waitingFor?: string): void {
    this.person.notifier.send({
      event,
      job: live.record.id,
      label: live.record.name,
      state: live.record.state,
      ...(waitingFor ? { waitingFor: terminalLine(waitingFor, 300) } : {}),
      waiting: this.person.inbox.size,
    });
  }

  async #tail(client: VenomClient, target: string): Promise<string> {
    const { text } = await client.request("pane/capture", { target, start: -TAIL_LINES, join: true });
    return fitEncoded(text.replace(/\s+$/, "\n"), TAIL_BYTES, "tail");
  }

  /** Record a change on the way; a new state (or a relayed approval) is also a progress line for the launcher. */
  #update(live: LiveJob, change: Partial<JobRecord>, detail?: string): void {
    const before = live.record.state;
    Object.assign(live.record, change);
    void this.#keep(live.record);
    if (live.record.state === before && detail === undefined && !("startedAt" in change)) return;
    this.#notify(live, detail);
  }

  /**
   * Record the job's end, with what it changed in its worktree (its branch moved to where it committed): on file
   * before the launcher hears of it; its questions still waiting are withdrawn. What it changed is read before the
   * record says it ended, so whoever sees it ended sees that too.
   */
  async #finish(live: LiveJob, change: Partial<JobRecord> & Pick<JobRecord, "state">): Promise<void> {
    const { worktree } = live.record;
    if (worktree) {
      await followBranch(worktree).catch((error: Error) =>
        this.logger.warn({ job: live.record.id, error: error.message }, "a worktree job's branch could not follow its HEAD"),
      );
      Object.assign(worktree, await changesOf(worktree).catch(() => ({})));
    }
    Object.assign(live.record, change, { pending: null });
    await this.#keep(live.record);
    this.#notify(live);
    const { id, name, state } = live.record;
    this.person.inbox.jobEnded({ id, name, state });
    if (live.record.launcher.depth === 0) this.#notifyPerson(live, "ended");
  }

  #notify(live: LiveJob, detail?: string): void {
    const event = { job: live.record.id, name: live.record.name, state: live.record.state } as Record<string, unknown>;
    const exit = live.record.exitCode !== null ? `exit ${live.record.exitCode}` : (live.record.note ?? undefined);
    const text = detail ?? (FINAL_STATES.includes(live.record.state) ? exit : undefined);
    if (text) event.detail = text.slice(0, 512);
    live.launcher.notify("event/agent", event);
  }

  /**
   * Put a record on file, off the event loop (JobStore.save). A write that
   * fails is logged and the job goes on: its file keeps the state before, and a
   * job whose file still says it runs is marked interrupted at the next start.
   */
  #keep(record: JobRecord): Promise<void> {
    return this.#store
      .save(record)
      .catch((error: Error) => this.logger.error({ job: record.id, error: error.message }, "a job record could not be written"));
  }

  /** claude-1, claude-2, …: numbered past every job on file, so a restart never reuses a label. */
  #nextName(agent: string): string {
    let n = 1;
    while (this.#names.has(`${agent}-${n}`)) n++;
    this.#names.add(`${agent}-${n}`);
    return `${agent}-${n}`;
  }

  /**
   * A connection to this home's venom-mux. Tried first: a running venom-mux
   * (every job but the first) costs no probe connection; only when nothing
   * listens on its socket is it started, then connected to.
   */
  async #connectMux(options: ClientOptions): Promise<VenomClient> {
    try {
      return await VenomClient.connect(this.home.socket("mux"), options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ECONNREFUSED") throw error;
    }
    await this.#ensureMux();
    return VenomClient.connect(this.home.socket("mux"), options);
  }

  /** venom-mux must be running in this home; venom-orch starts it when absent, and only as the owner. */
  async #ensureMux(): Promise<void> {
    if (await answers(this.home.socket("mux"))) return;
    if (parseMarkers(process.env).depth > 0) throw new Error("venom-mux is not running, and a delegated venom-orch may not start it");
    // venom-mux's serve itself, as `venom-mux start` would spawn it: starting it through that command cost one more Node start.
    this.#muxStarting ??= startDaemon({ main: muxMain(), app: "mux", home: this.home, workspace: this.workspace })
      .then(() => this.logger.info("started venom-mux"))
      .catch((error: Error) => {
        throw new Error(`venom-mux could not be started: ${error.message}`);
      })
      .finally(() => {
        this.#muxStarting = null;
      });
    await this.#muxStarting;
  }
}

/** Venom's launchers as /proc names them, found at the first launch. */
let launchers: Set<string> | undefined;

/**
 * "Launched" means the process started with the prompt in its argv: wait until
 * /proc shows the program itself (a script's interpreter comes first, so the
 * argv's tail is compared; Venom's own launchers, which carry the same tail
 * until they exec it, do not count). True once it runs, false if it ended
 * first: a zombie's or a gone process's exit is what pane/wait reports.
 */
async function startedWithArgv(pid: number, argv: readonly string[]): Promise<boolean> {
  const expected = argv.slice(1);
  launchers ??= new Set(launcherPrograms());
  const deadline = Date.now() + EXEC_WAIT_MS;
  while (Date.now() < deadline) {
    // Gone or a zombie: it exited, which wait will report. (An empty cmdline is no sign of that: it is empty in the middle of an exec.)
    if (isGone(processStat(pid))) return false;
    let cmdline: string[];
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
    } catch {
      return false;
    }
    const tail = cmdline.slice(cmdline.length - expected.length);
    // An executable we may not read (a program that made itself non-dumpable) is not one of Venom's launchers.
    const exe = executableOf(pid);
    const ours = exe !== null && launchers.has(exe);
    if (!ours && tail.length === expected.length && tail.every((arg, i) => arg === expected[i])) return true;
    await new Promise((r) => setTimeout(r, EXEC_POLL_MS));
  }
  throw new Error("the agent's process never showed its argv: it was not launched as asked");
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 300);
}

/** What a worktree's job changed, bounded and escaped for its record (at most 64 KiB on file, jobs.ts). */
async function changesOf(worktree: Worktree): Promise<{ commits: string[]; stat: string; untracked: string[] }> {
  const changes = await worktreeChanges(worktree);
  const shown = (text: string, max: number) => cutMiddle(terminalSafe(text), max);
  return {
    commits: changes.commits.slice(0, 30).map((c) => shown(c, 160)),
    stat: shown(changes.stat, 4096),
    untracked: changes.untracked.slice(0, 30).map((f) => shown(f, 200)),
  };
}
