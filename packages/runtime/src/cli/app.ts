import type { Config } from "../config.js";
import type { Daemon } from "../daemon.js";
import type { AppName, VenomHome } from "../home.js";

/** What the shared daemon commands need to know about one app. */
export interface CliApp {
  /** The binary, e.g. "venom-echo". */
  program: string;
  app: AppName;
  version: string;
  createDaemon(options: { home: VenomHome; workspace: string; config: Config }): Daemon<any>;
}
