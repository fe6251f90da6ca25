import { AGENT_VAR_PREFIXES } from "@venom/agents";
import { isSecretShaped } from "@venom/proto";

/**
 * Credential-shaped strings an agent may put in a tool title (a command line
 * with a token, a URL with a key), replaced before the title becomes a
 * progress line. Progress lines carry titles only, never tool output; this is
 * the second line of defence for what a title itself carries.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  // Anything long and unbroken enough to be a key.
  /[A-Za-z0-9+/_=-]{40,}/g,
];

export function redactSecrets(text: string): string {
  let out = text.replace(/\b(Bearer|Basic|token)(\s+|=|:\s*)[^\s'"]{8,}/gi, "$1$2[redacted]");
  out = out.replace(/\b([A-Za-z_][A-Za-z0-9_]*)=([^\s'"]+)/g, (match, name: string) =>
    isSecretShaped(name, AGENT_VAR_PREFIXES) ? `${name}=[redacted]` : match,
  );
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, "[redacted]");
  return out;
}
