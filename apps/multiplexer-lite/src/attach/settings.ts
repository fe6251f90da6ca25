import { type CliApp, loadUserConfigMemo, sectionOf, type VenomHome } from "@venom/runtime/cli";
import { type KeyBinding, keyBindings } from "../commands/bindings.js";
import type { MuxConfig } from "../config.js";
import { describePrefix, PrefixError, parsePrefix } from "./keys.js";

/** What config.toml says about an attached client. */
export interface ClientSettings {
  /** The prefix key's bytes, and its name as tmux writes it. */
  prefix: string;
  prefixName: string;
  status: boolean;
  /** The prefix table: the key after the prefix and the command line it runs. */
  bindings: KeyBinding[];
}

/**
 * What the user's config.toml says about the attached client: the prefix key (`[mux] prefix`, default C-b; a bad one
 * is an error naming the file and key), whether to show the status line (`[mux] status`, default on), and the prefix
 * table (`[mux.bindings]`, checked when the file is loaded: config.ts).
 */
export async function clientSettings(app: CliApp, home: VenomHome): Promise<ClientSettings> {
  // Through the memo: the configuration's zod schemas are loaded only when config.toml changed (config-memo.ts).
  // [mux] is under the app's name (config.ts).
  const mux = sectionOf<MuxConfig>(await loadUserConfigMemo(home, app), app.app);
  let prefix: string;
  try {
    prefix = parsePrefix(mux.prefix);
  } catch (error) {
    if (error instanceof PrefixError) throw new Error(`${home.configFile}: key mux.prefix: ${error.message}`);
    throw error;
  }
  const prefixName = describePrefix(prefix);
  return { prefix, prefixName, status: mux.status, bindings: keyBindings(prefixName, mux.bindings) };
}
