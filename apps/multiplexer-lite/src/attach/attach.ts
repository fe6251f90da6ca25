import { type CliApp, Exit, loadUserConfigMemo, sectionOf, type VenomHome } from "@venom/runtime/cli";
import type { MuxConfig } from "../config.js";
import { PrefixError, parsePrefix } from "./keys.js";
import { AttachSession, NestingRefused } from "./session.js";
import { OuterTerminal } from "./terminal.js";

/**
 * What the user's config.toml says about the attached client: the prefix key (`[mux] prefix`, default C-b; a bad one
 * is an error naming the file and key) and whether to show the status line (`[mux] status`, default on).
 */
export async function clientSettings(app: CliApp, home: VenomHome): Promise<{ prefix: string; status: boolean }> {
  // Through the memo: the configuration's zod schemas are loaded only when config.toml changed (config-memo.ts).
  // [mux] is under the app's name (config.ts).
  const mux = sectionOf<MuxConfig>(await loadUserConfigMemo(home, app), app.app);
  try {
    return { prefix: parsePrefix(mux.prefix), status: mux.status };
  } catch (error) {
    if (error instanceof PrefixError) throw new Error(`${home.configFile}: key mux.prefix: ${error.message}`);
    throw error;
  }
}

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
  options: { made?: boolean; exitWithPane?: boolean } = {},
): Promise<number> {
  const settings = { ...(await clientSettings(app, home)), exitWithPane: options.exitWithPane === true };
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
