import * as z from "zod";

/** Every capability a tool may declare, in the one canonical order. */
export const CAPABILITIES = ["fs.read", "fs.write", "process", "network", "secret", "env.read", "env.write"] as const;

export const CapabilitySchema = z.enum(CAPABILITIES);
export type Capability = z.infer<typeof CapabilitySchema>;

/**
 * A capability set: deduplicated, in canonical order and frozen, so the order a
 * definition happens to list them in can never change a fingerprint or a decision.
 */
export function capabilitySet(capabilities: Iterable<Capability>): readonly Capability[] {
  const wanted = new Set<Capability>();
  for (const capability of capabilities) wanted.add(CapabilitySchema.parse(capability));
  return Object.freeze(CAPABILITIES.filter((capability) => wanted.has(capability)));
}
