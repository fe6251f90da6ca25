import type { z } from "zod";
import { type Capability, capabilitySet } from "./capabilities.js";
import type { Effect, Replay, Risk, ToolResult } from "./wire.js";

/** What a running tool gets besides its input: the call's signal and the app's own context. */
export interface ToolCall<Context> {
  readonly callId: string;
  readonly signal: AbortSignal;
  /** Seconds the call may run: the caller's choice bounded by the configured ceiling. */
  readonly timeoutSeconds: number;
  readonly context: Context;
}

export interface ToolSpec<Input, Context> {
  name: string;
  description: string;
  input: z.ZodType<Input>;
  capabilities: Iterable<Capability>;
  effect: Effect;
  replay: Replay;
  /** A short, human-readable account of this call for the approval prompt. */
  summarize(input: Input, context: Context): string;
  /**
   * Checks this call's options against what the tool takes, before approval is
   * asked and before anything starts; throws a ProtocolError naming the field.
   */
  precheck?(input: Input, context: Context): void;
  /** The risk of this call; defaults to one derived from effect and capabilities. */
  risk?(input: Input): Risk;
  /** This call's replay contract when it differs from the definition's (e.g. a write with an expected hash is idempotent). */
  replayOf?(input: Input): Replay;
  run(input: Input, call: ToolCall<Context>): Promise<Omit<ToolResult, "status"> & { status?: ToolResult["status"] }>;
}

export interface ToolDefinition<Input = any, Context = any> extends Readonly<Omit<ToolSpec<Input, Context>, "capabilities">> {
  readonly capabilities: readonly Capability[];
  risk(input: Input): Risk;
  replayOf(input: Input): Replay;
}

export class ToolDefinitionError extends Error {
  override readonly name = "ToolDefinitionError";
}

const WRITE_LIKE: readonly Capability[] = ["fs.write", "process", "network", "env.write"];

/**
 * Validate a definition and freeze it. Fails closed at load (RFC 0008, "Canonical
 * interception"): a read-only tool may not ask for write, process, network or
 * env.write, and replay-safe is reserved for read-only work.
 */
export function defineTool<Input, Context>(spec: ToolSpec<Input, Context>): ToolDefinition<Input, Context> {
  if (!/^[a-z][a-z0-9_.-]{0,63}$/.test(spec.name)) {
    throw new ToolDefinitionError(`tool name ${JSON.stringify(spec.name)} must match [a-z][a-z0-9_.-]{0,63}`);
  }
  const capabilities = capabilitySet(spec.capabilities);
  if (spec.effect === "read-only") {
    const forbidden = capabilities.filter((c) => WRITE_LIKE.includes(c));
    if (forbidden.length > 0) {
      throw new ToolDefinitionError(`tool ${spec.name} is read-only but declares ${forbidden.join(", ")}`);
    }
  }
  if (spec.effect === "mutating" && spec.replay === "safe") {
    throw new ToolDefinitionError(`tool ${spec.name} is mutating and so cannot be replay-safe; choose idempotent or unsafe`);
  }
  const derivedRisk = defaultRisk(spec.effect, capabilities);
  const replayOf = (input: Input): Replay => {
    const replay = spec.replayOf ? spec.replayOf(input) : spec.replay;
    // A per-call contract can never make mutating work replay-safe.
    return spec.effect === "mutating" && replay === "safe" ? "unsafe" : replay;
  };
  return Object.freeze({
    ...spec,
    capabilities,
    risk: spec.risk ? spec.risk.bind(spec) : () => derivedRisk,
    replayOf,
  });
}

function defaultRisk(effect: Effect, capabilities: readonly Capability[]): Risk {
  if (effect === "read-only") return capabilities.includes("secret") ? "secret-read" : "read";
  if (capabilities.includes("process")) return "process";
  if (capabilities.includes("network")) return "network";
  return "write";
}
