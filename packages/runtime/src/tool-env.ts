import { childMarkers, MARKER_DEPTH, MARKER_PARENT } from "@venom/proto";

/**
 * The environment of a process a tool starts for a session: the daemon's own,
 * as `bash` inherits it in conformance/spec/security-model.txt, less Venom's instance selectors and every
 * `*_API_KEY` in any case (no tool output should be able to print a provider key), plus the
 * delegation markers so the process and its descendants are known as delegates.
 */
export function toolEnv(base: NodeJS.ProcessEnv, parent: string, parentDepth: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || key.toUpperCase().endsWith("_API_KEY") || key === MARKER_PARENT || key === MARKER_DEPTH) continue;
    env[key] = value;
  }
  return { ...env, ...childMarkers(parent, parentDepth) };
}
