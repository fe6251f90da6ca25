import { join } from "node:path";
import pino, { type Logger } from "pino";
import type { AppName, VenomHome } from "./home.js";
import { openPrivateAppend } from "./private-files.js";

export type { Logger };

/**
 * The daemon's diagnostics: pino JSON in $VENOM_HOME/logs/<app>.log (0600),
 * never on the protocol stream. Callers log identities, method and tool names,
 * statuses and sizes; never params, tool output, prompts or environment values.
 * The redact list below is the second line of defence, not the first.
 */
export function createLogger(home: VenomHome, app: AppName): Logger {
  // Opened by Venom, not by pino: a log planted as a symlink is refused, never followed.
  const destination = pino.destination({ fd: openPrivateAppend(join(home.logs, `${app}.log`)), sync: true });
  return pino(
    {
      base: { app, pid: process.pid },
      redact: { paths: ["params", "arguments", "env", "content", "*.secret", "*.token", "*.apiKey"], censor: "[redacted]" },
    },
    destination,
  );
}
