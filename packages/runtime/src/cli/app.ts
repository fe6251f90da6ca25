import type { Config, ConfigSection, loadUserConfig } from "../config.js";
import type { Daemon } from "../daemon.js";
import type { VenomHome } from "../home.js";

/** What the shared daemon commands need to know about one app. */
export interface CliApp {
  /** The binary, e.g. "venom-echo". */
  program: string;
  /** Its name (APP_NAME): its socket is $VENOM_HOME/state/NAME.sock. */
  app: string;
  version: string;
  /**
   * The daemon, loaded only by `serve`: client commands such as `ls` must not
   * pay for loading the daemon's modules (ptys, screen models) at startup.
   */
  loadDaemon(): Promise<DaemonModule>;
  /**
   * The app's sections of config.toml, for a command that reads the file
   * (loadUserConfigMemo); loaded only then, as they load zod.
   */
  configSections(): Promise<readonly ConfigSection[]>;
}

/**
 * What `serve` loads: the daemon and, from the same module, the
 * configuration's loader and the app's sections of it. The daemon is a
 * bundle of its own (scripts/bundle.mjs); the CLI's loader would put a
 * second zod in its process.
 */
export interface DaemonModule {
  createDaemon(options: { home: VenomHome; workspace: string; config: Config }): Daemon<any>;
  loadUserConfig: typeof loadUserConfig;
  configSections: readonly ConfigSection[];
}
