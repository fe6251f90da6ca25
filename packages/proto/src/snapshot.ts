import * as z from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.js";
import type { ToolDefinition } from "./tools.js";
import type { SnapshotWire, ToolDescriptor } from "./wire.js";

/**
 * One immutable set of tool definitions for a session. The fingerprint is the
 * sha256 of the canonical JSON of its sorted descriptors, so declaration order
 * never changes it, while any change to a name, schema, capability, effect or
 * replay contract does.
 */
export class Snapshot {
  readonly fingerprint: string;
  readonly descriptors: readonly ToolDescriptor[];
  readonly #definitions: ReadonlyMap<string, ToolDefinition>;

  constructor(definitions: Iterable<ToolDefinition>) {
    const byName = new Map<string, ToolDefinition>();
    for (const definition of definitions) {
      if (byName.has(definition.name)) throw new Error(`duplicate tool definition: ${definition.name}`);
      byName.set(definition.name, definition);
    }
    const names = [...byName.keys()].sort();
    this.#definitions = new Map(names.map((name) => [name, byName.get(name) as ToolDefinition]));
    this.descriptors = deepFreeze(names.map((name) => describe(byName.get(name) as ToolDefinition)));
    this.fingerprint = sha256Hex(canonicalJson(this.descriptors));
    Object.freeze(this);
  }

  get names(): readonly string[] {
    return [...this.#definitions.keys()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.#definitions.get(name);
  }

  /** A snapshot holding only the named tools: how a grant narrows what a session sees. */
  restrict(names: Iterable<string>): Snapshot {
    const keep = new Set(names);
    return new Snapshot([...this.#definitions.values()].filter((d) => keep.has(d.name)));
  }

  toJSON(): SnapshotWire {
    return { fingerprint: this.fingerprint, tools: this.descriptors as ToolDescriptor[] };
  }
}

/**
 * Each definition's descriptor, made once: every hello restricts the daemon's
 * snapshot to the session's grant, and converting the input schema to JSON
 * Schema again each time was a visible part of answering a CLI command's hello
 * (docs/benchmarks.md). Descriptors are deep-frozen, so snapshots can share them.
 */
const descriptorCache = new WeakMap<ToolDefinition, ToolDescriptor>();

function describe(definition: ToolDefinition): ToolDescriptor {
  let descriptor = descriptorCache.get(definition);
  if (!descriptor) {
    descriptor = deepFreeze({
      name: definition.name,
      description: definition.description,
      inputSchema: z.toJSONSchema(definition.input, { io: "input" }) as Record<string, unknown>,
      capabilities: [...definition.capabilities],
      effect: definition.effect,
      replay: definition.replay,
    });
    descriptorCache.set(definition, descriptor);
  }
  return descriptor;
}

/** Freezes `value` and everything it holds, for data shared by every caller that no caller may change. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
