import type { CheckContext } from "./context.js";

/** MUST failures fail the run; SHOULD failures warn (and fail under --strict). */
export type Level = "MUST" | "SHOULD";

/** The documents requirements are quoted from: copies in conformance/spec/ (its README says where they come from). */
export const SOURCES = {
  "security-model": { title: "Security Model", file: "spec/security-model.txt" },
  "rfc-0008": { title: "RFC 0008: Security Responsibility and Capability Model", file: "spec/rfc-0008.txt" },
  design: { title: "Venom design", file: "spec/design.md" },
} as const;
export type SourceId = keyof typeof SOURCES;

/** One sentence of a source document, exactly as written there, and the section it is in. */
export interface Quote {
  source: SourceId;
  section: string;
  text: string;
}

export const securityModel = (section: string, text: string): Quote => ({ source: "security-model", section, text });
export const rfc0008 = (section: string, text: string): Quote => ({ source: "rfc-0008", section, text });
export const design = (section: string, text: string): Quote => ({ source: "design", section, text });

export interface Check {
  /** Stable: reports, --only and known-failure lists name checks by it. */
  id: string;
  level: Level;
  /** The sentence this check enforces; `also` quotes the design where it makes the rule concrete for venom/1. */
  requirement: Quote;
  also?: readonly Quote[];
  /** What a conforming daemon does, in our words. */
  expected: string;
  /** Tools the check exercises (any of them, or "any" tool at all): not applicable when the owner's hello offers none. */
  needs?: readonly string[] | "any";
  /** Methods the check exercises (all of them): not applicable when the owner's hello lists them not. */
  needsMethods?: readonly string[];
  /** When the check finds, from the tool's own descriptor, that it does not apply (it then throws NotApplicable). */
  notApplicableWhen?: string;
  /** Resolves with what was observed; throws a CheckFailure (or anything) when the daemon falls short. */
  run(ctx: CheckContext): Promise<string>;
}
