import {
  type ApprovalGate,
  type ApprovalRelayParamsSchema,
  ApprovalResponseSchema,
  askApproval,
  type Grant,
  relayLabel,
} from "@venom/proto";
import type { z } from "zod";
import { VenomClient } from "./client.js";
import type { DelegationRecord } from "./delegations.js";
import type { VenomHome } from "./home.js";

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

/** The delegations a daemon owns, by record id, with the session each one asks. */
export class LauncherTable {
  readonly #launchers = new Map<string, Launcher>();

  /** Remember who launched `record`; the returned function forgets it. */
  add(record: string, launcher: Launcher): () => void {
    this.#launchers.set(record, launcher);
    return () => {
      if (this.#launchers.get(record) === launcher) this.#launchers.delete(record);
    };
  }

  /** A relayed question for one of our delegations: the launcher's policy and gate decide; nobody known denies. */
  async answer(params: RelayParams, signal: AbortSignal): Promise<"approve" | "deny"> {
    const launcher = this.#launchers.get(params.record);
    if (!launcher) return "deny";
    const request = { ...params.request, label: relayLabel(params.request.label, launcher.name, params.depth) };
    const outcome = await askApproval(launcher.grant, launcher.gate, request, signal);
    return outcome.allowed ? "approve" : "deny";
  }
}

export interface RelayHost {
  readonly home: VenomHome;
  readonly instance: string;
  readonly server: { name: string; version: string };
  readonly launchers: LauncherTable;
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
    return relayToOwner(host, record, params, signal);
  };
}

/** Ask the owning daemon over its socket; anything unexpected (gone, another instance, garbled) denies. */
async function relayToOwner(
  host: RelayHost,
  record: DelegationRecord,
  params: RelayParams,
  signal: AbortSignal,
): Promise<"approve" | "deny"> {
  let client: VenomClient | undefined;
  try {
    client = await VenomClient.connect(host.home.socket(record.owner.app), { client: host.server, noTools: true });
    if (client.hello.instance !== record.owner.instance) return "deny";
    const answer = ApprovalResponseSchema.safeParse(await client.rpc.request("approval/relay", params, signal));
    return answer.success ? answer.data.decision : "deny";
  } catch {
    return "deny";
  } finally {
    client?.close();
  }
}
