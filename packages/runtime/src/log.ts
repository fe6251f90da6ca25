import { join } from "node:path";
import pino, { type Logger } from "pino";
import type { AppName, VenomHome } from "./home.js";

export type { Logger };

/**
 * The daemon's diagnostics: pino JSON in $VENOM_HOME/logs/<app>.log (0600),
 * never on the protocol stream. Callers log identities, method and tool names,
 * statuses and sizes; never params, tool output, prompts or environment values.
 * The redact list below is the second line of defence, not the first.
 */
export function createLogger(home: VenomHome, app: AppName): Logger {
  const destination = pino.destination({ dest: join(home.logs, `${app}.log`), sync: true, mode: 0o600, mkdir: false });
  return pino(
    {
      base: { app, pid: process.pid },
      redact: { paths: ["params", "arguments", "env", "content", "*.secret", "*.token", "*.apiKey"], censor: "[redacted]" },
    },
    destination,
  );
}
