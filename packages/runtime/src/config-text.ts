import { openByName, readRegularFile, UnreadableFile } from "./private-files.js";

/**
 * A configuration file's text, read the one way every reader reads it. No zod
 * here: the CLI's memo of the validated configuration (config-memo.ts) reads
 * the text without loading the configuration's schemas.
 */

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Far above any real configuration; bounds what a planted file can make the daemon read and parse. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** A config file's text: a regular file (no symlink, FIFO or device), bounded, read without waiting; undefined if there is none. */
export function readConfigText(file: string, open: (flags: number) => number = openByName(file)): string | undefined {
  try {
    return readRegularFile(file, open, MAX_CONFIG_BYTES)?.toString("utf8");
  } catch (error) {
    if (error instanceof UnreadableFile) throw new ConfigError(error.message);
    throw error;
  }
}
