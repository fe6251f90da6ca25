import { closeSync, fstatSync, lstatSync, openSync } from "node:fs";
import type { CliApp } from "./cli/app.js";
import type { Config } from "./config.js";
import { MAX_CONFIG_BYTES, readConfigText } from "./config-text.js";
import { assertPrivate, type VenomHome, writeFileAtomic } from "./home.js";
import { readRegularFile } from "./private-files.js";

declare const __VENOM_BUILD__: string | undefined;
/** The CLI bundle this module was built into (scripts/bundle.mjs: a hash of its code); none when it runs unbundled. */
const BUILD = typeof __VENOM_BUILD__ === "string" ? __VENOM_BUILD__ : undefined;

/** A memo holds config.toml's text and what it validated to: room for both at their largest. */
const MAX_MEMO_BYTES = 8 * MAX_CONFIG_BYTES;

type Memo = { build: string; source: string | null; config: Config };

/**
 * The user's configuration for a CLI command (`venom-orch agents`, `venom-mux attach`), without
 * loading the configuration's zod schemas when config.toml's text is the text
 * this same build last validated: zod and the schemas cost such a command
 * some 40 ms of its start (docs/benchmarks.md). The memo,
 * $VENOM_HOME/state/config-memo.APP.json, holds the build, the text and the
 * validated configuration; it is written (0600, whole or not at all) only
 * after the text passed every check loadUserConfig makes, and used only while
 * the build and the whole text are the same, so the command sees what
 * loadUserConfig would return with the app's sections (CliApp.configSections), and an invalid file fails the same way every
 * time. A memo that is not a regular file private to this user is ignored,
 * like a missing one. The daemons never use it: they validate the file.
 */
export async function loadUserConfigMemo(home: VenomHome, app: Pick<CliApp, "app" | "configSections">, build = BUILD): Promise<Config> {
  const text = readConfigText(home.configFile);
  const source = text ?? null;
  const memoFile = home.configMemo(app.app);
  if (build !== undefined) {
    const memo = readMemo(memoFile);
    if (memo?.build === build && memo.source === source && typeof memo.config === "object" && memo.config !== null) return memo.config;
  }
  const { userConfigFromText } = await import("./config.js");
  const config = userConfigFromText(home.configFile, text, await app.configSections());
  if (build !== undefined) writeMemo(home, memoFile, { build, source, config });
  return config;
}

function readMemo(path: string): Partial<Memo> | undefined {
  // Opened without following a link or waiting on a FIFO, and checked to be this user's private file before a byte is read.
  const openPrivate = (flags: number) => {
    const fd = openSync(path, flags);
    try {
      assertPrivate(path, fstatSync(fd), "file");
      return fd;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  };
  try {
    const bytes = readRegularFile(path, openPrivate, MAX_MEMO_BYTES);
    return bytes === undefined ? undefined : JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Only into a state directory that exists and is private (a command that reads creates no home); a memo that cannot be written is no error. */
function writeMemo(home: VenomHome, path: string, memo: Memo): void {
  try {
    assertPrivate(home.state, lstatSync(home.state), "directory");
    // Not fsynced: a memo lost to a power cut is made again by the next command.
    writeFileAtomic(path, JSON.stringify(memo), { durable: false });
  } catch {}
}
