// Which environment variable names may carry a secret (docs/venom-orch.md, "What a delegated agent gets"): the one
// rule that the environment of a delegated child (the runtime's child-env.ts), the configuration of agents
// (@venom/agents) and redaction read.

/**
 * Names that look like a credential or Venom's own: they never reach a
 * delegated child, whoever asks. Matched without regard to case. The cloud
 * providers' prefixes are here; the agents' own names are declared by them.
 */
const SECRET_SHAPED = [/^VENOM_/, /_KEY$/, /TOKEN/, /SECRET/, /PASSWORD|PASSWD/, /CREDENTIAL/, /^(AWS|AZURE|GOOGLE)_/];

/**
 * Whether `name` may never be passed to a delegated child: it is secret-shaped,
 * or one of `declared` (names, or prefixes with a trailing `*`), both without
 * regard to case.
 */
export function isSecretShaped(name: string, declared: readonly string[] = []): boolean {
  const upper = name.toUpperCase();
  return (
    SECRET_SHAPED.some((pattern) => pattern.test(upper)) ||
    matchesAny(
      upper,
      declared.map((entry) => entry.toUpperCase()),
    )
  );
}

/** Whether `name` is one of `patterns`: names, or prefixes with a trailing `*`. */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}
