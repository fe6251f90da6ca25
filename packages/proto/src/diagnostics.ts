/** Longest diagnostic text that leaves the dispatcher. */
export const MAX_DIAGNOSTIC_CHARS = 240;

/**
 * A message written by our own code for the person who called a tool (for example
 * "path escapes the workspace"). Tools throw it when the failure is the caller's
 * to know; its text must never carry file contents, environment values or secrets.
 */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure";
}

/** Cut text to a bound, saying that it was cut. */
export function bounded(text: string, max = MAX_DIAGNOSTIC_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 12)}… (cut)`;
}

/**
 * Turn anything thrown into a short diagnostic that never includes the thrown
 * value: an arbitrary error message may quote a secret, a path or tool output.
 * Only the error's class name and an errno-style code survive.
 */
export function diagnosticFor(where: string, thrown: unknown): string {
  if (thrown instanceof ToolFailure) return bounded(thrown.message);
  const kind = thrown instanceof Error && /^[A-Za-z][A-Za-z0-9]{0,40}$/.test(thrown.name) ? thrown.name : typeof thrown;
  const code = (thrown as { code?: unknown } | null)?.code;
  const suffix = typeof code === "string" && /^E[A-Z0-9]{1,20}$/.test(code) ? ` (${code})` : "";
  return bounded(`${where} failed: ${kind}${suffix}`);
}

/**
 * Where an unexpected error was thrown, for the daemon's log: the frames of
 * its stack, without the header that V8 writes first (the error's name and
 * message, which may quote a path or a secret). A stack that does not begin
 * with that header exactly (a message changed after the throw, a stack
 * rewritten) gives no frames rather than a guess at where the message ends.
 */
export function stackFrames(thrown: unknown, max = 12): string[] {
  if (!(thrown instanceof Error) || typeof thrown.stack !== "string") return [];
  const header = thrown.message === "" ? thrown.name : `${thrown.name}: ${thrown.message}`;
  if (!thrown.stack.startsWith(`${header}\n`)) return [];
  return thrown.stack
    .slice(header.length + 1)
    .split("\n")
    .slice(0, max)
    .map((frame) => bounded(frame.trim()));
}
