import { type CliApp, Exit, type VenomHome } from "@venom/runtime/cli";
import { AttachSession, NestingRefused } from "./session.js";
import { clientSettings } from "./settings.js";
import { OuterTerminal } from "./terminal.js";

/**
 * Attach this terminal to a pane until the user detaches (prefix d), the last
 * pane exits, or the daemon goes away; returns the exit code. The terminal is
 * restored in every case, and a line says how it ended, as tmux does.
 */
export function attachToPane(app: CliApp, home: VenomHome, target: string): Promise<number> {
  return attachTo(app, home, target, { made: true });
}

/**
 * attachToPane, where no target means the newest running pane (tmux attaches
 * the most recent session). `made`: the pane was just made by `new`, so one
 * whose program has already exited is left as any exited pane is (the last or
 * next running pane, else `[exited]` and exit 0), as tmux's new-window; an
 * exited pane asked for by name is an error instead.
 */
export async function attachTo(
  app: CliApp,
  home: VenomHome,
  target: string | undefined,
  options: { made?: boolean; exitWithPane?: boolean; via?: readonly string[] } = {},
): Promise<number> {
  const settings = {
    ...(await clientSettings(app, home)),
    exitWithPane: options.exitWithPane === true,
    ...(options.via ? { via: options.via } : {}),
  };
  if (!OuterTerminal.available()) {
    process.stderr.write(
      `${app.program} attach: needs a terminal (stdin and stdout must be a TTY); from a script use ${app.program} send and ${app.program} capture\n`,
    );
    return Exit.usage;
  }
  const terminal = new OuterTerminal();
  const session = new AttachSession(app, home, terminal, settings);
  let outcome: Awaited<ReturnType<AttachSession["run"]>>;
  try {
    outcome = await session.run(target, options.made === true);
  } catch (error) {
    if (!(error instanceof NestingRefused)) throw error;
    process.stderr.write(`${app.program} attach: ${error.message}\n`);
    return Exit.refused;
  }
  (outcome.stream === "stdout" ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  return outcome.code;
}
