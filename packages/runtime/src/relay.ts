import {
  ApprovalBusy,
  type ApprovalGate,
  type ApprovalRelayParamsSchema,
  ApprovalResponseSchema,
  askApproval,
  bounded,
  ErrorCode,
  type Grant,
  relayLabel,
} from "@venom/proto";
import type { z } from "zod";
import { VenomClient } from "./client.js";
import type { DelegationRecord } from "./delegations.js";
import type { VenomHome } from "./home.js";
import { RpcRemoteError } from "./rpc.js";

// The relay (conformance/spec/design.md, "Delegation across daemons"): a delegate's call that
// needs approval is never answered by the delegate's own connection. The daemon
// it called sends the question to the daemon that owns the delegation the
// caller descends from (found by process ancestry and start time, never named
// by the caller), and that daemon puts it to the session that launched the
// delegation, which may itself be a delegate whose gate relays one hop further.

export type RelayParams = z.infer<typeof ApprovalRelayParamsSchema>;

/** A session that launched a delegation, kept by the daemon that owns its record. */
export interface Launcher {
  /** How the person knows the delegation, e.g. "claude-1". */
  name: string;
  grant: Grant;
  gate: ApprovalGate;
}

/**
 * Questions of one delegation that wait for its launcher at once, at most:
 * one more is refused at once, without asking anyone. Each holds a call and
 * its relay, and a person answers one at a time anyway; an agent that
 * pipelined 150 calls put 135 questions on the person. venom-orch holds an
 * ACP agent's permission requests to it too (apps/orchestrator-lite/src/acp/session.ts).
 */
export const PENDING_LIMIT = 16;

/** A delegation's launcher and how many of its questions wait now. */
interface LauncherEntry {
  readonly launcher: Launcher;
  waiting: number;
}

/** The delegations a daemon owns, by record id, with the session each one asks. */
export class LauncherTable {
  readonly #launchers = new Map<string, LauncherEntry>();

  /** Remember who launched `record`; the returned function forgets it. */
  add(record: string, launcher: Launcher): () => void {
    const entry = { launcher, waiting: 0 };
    this.#launchers.set(record, entry);
    return () => {
      if (this.#launchers.get(record) === entry) this.#launchers.delete(record);
    };
  }

  /**
   * A relayed question for one of our delegations: the launcher's policy and
   * gate decide; nobody known denies; past PENDING_LIMIT waiting, ApprovalBusy.
   */
  async answer(params: RelayParams, signal: AbortSignal): Promise<"approve" | "deny"> {
    const entry = this.#launchers.get(params.record);
    if (!entry) return "deny";
    if (entry.waiting >= PENDING_LIMIT) {
      throw new ApprovalBusy(
        `busy: at most ${PENDING_LIMIT} approval questions of one delegation wait at once; this one was refused without asking anyone`,
      );
    }
    const { launcher } = entry;
    const request = { ...params.request, label: relayLabel(params.request.label, launcher.name, params.depth) };
    entry.waiting++;
    try {
      const outcome = await askApproval(launcher.grant, launcher.gate, request, signal);
      return outcome.allowed ? "approve" : "deny";
    } finally {
      entry.waiting--;
    }
  }
}

/**
 * The connections this daemon relays questions over: one to each owning
 * daemon, shared by every question that waits on it, and closed when the last
 * one is answered. A connection from a daemon is the owner's context, so each
 * question on a connection of its own took one of the slots kept for the
 * owner (daemon.ts, OWNER_RESERVE): 150 waiting questions locked the person
 * out of `venom-mux ls`. Shared, the relays between the daemons of one
 * instance hold a connection or two, whatever waits on them. A question whose
 * call ends first is not withdrawn from the owning daemon: it waits there,
 * and counts against PENDING_LIMIT, until its launcher answers or the shared
 * connection closes.
 */
export class RelayLinks {
  readonly #links = new Map<string, RelayLink>();

  constructor(
    private readonly home: VenomHome,
    private readonly server: { name: string; version: string },
  ) {}

  /** Ask the owning daemon; anything unexpected (gone, another instance, garbled) denies, and too many waiting there is ApprovalBusy. */
  async ask(record: DelegationRecord, params: RelayParams, signal: AbortSignal): Promise<"approve" | "deny"> {
    const socket = this.home.socket(record.owner.app);
    const link = this.#open(socket);
    link.users++;
    try {
      const client = await link.client;
      if (client.hello.instance !== record.owner.instance) return "deny";
      const answer = ApprovalResponseSchema.safeParse(await client.rpc.request("approval/relay", params, signal));
      return answer.success ? answer.data.decision : "deny";
    } catch (error) {
      if (error instanceof RpcRemoteError && error.code === ErrorCode.Busy) throw new ApprovalBusy(bounded(error.message, 256));
      return "deny";
    } finally {
      if (--link.users === 0) {
        if (this.#links.get(socket) === link) this.#links.delete(socket);
        link.client.then((client) => client.close()).catch(() => undefined);
      }
    }
  }

  /** The link to `socket`: the one open, or a new one where there is none or it is gone (its daemon stopped, or it never came up). */
  #open(socket: string): RelayLink {
    const known = this.#links.get(socket);
    if (known && !known.gone) return known;
    const link = new RelayLink(VenomClient.connect(socket, { client: this.server, noTools: true }));
    this.#links.set(socket, link);
    return link;
  }
}

/** One shared connection to an owning daemon, and how many questions wait on it. */
class RelayLink {
  users = 0;
  #client: VenomClient | null = null;
  #failed = false;

  constructor(readonly client: Promise<VenomClient>) {
    client.then(
      (connected) => {
        this.#client = connected;
      },
      () => {
        this.#failed = true;
      },
    );
  }

  get gone(): boolean {
    return this.#failed || this.#client?.rpc.closed === true;
  }
}

export interface RelayHost {
  readonly instance: string;
  readonly launchers: LauncherTable;
  readonly relayLinks: RelayLinks;
}

/**
 * The gate of a delegate's session: it never asks the delegate itself. With
 * no record (markers without a recorded ancestor) there is nobody to ask.
 */
export function relayGate(host: RelayHost, record: DelegationRecord | undefined, depth: number): ApprovalGate {
  if (!record) return null;
  return async (request, signal) => {
    const params: RelayParams = { record: record.id, depth, request };
    if (record.owner.instance === host.instance) return host.launchers.answer(params, signal);
    return host.relayLinks.ask(record, params, signal);
  };
}
