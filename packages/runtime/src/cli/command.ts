import type { ParseArgsConfig } from "node:util";
import type { VenomHome } from "../home.js";
import type { CliConnections } from "./connections.js";

// What a program's command table is made of (program.ts runs it; completion.ts reads it).

/** Exit codes scripts can trust. */
export const Exit = { ok: 0, failed: 1, usage: 2, refused: 3, notRunning: 4 } as const;

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export interface CommandRun {
  home: VenomHome;
  json: boolean;
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  io: Io;
  /** Connections shared by the commands of this command line (a sequence: `A \; B`). */
  connections: CliConnections;
}

/** One CLI command; a program is a table of them (tmux-style: one file per command). */
export interface Command {
  name: string;
  /** Other names it answers to (a multiplexer's tmux spellings: send-keys, killp…). */
  aliases?: readonly string[];
  summary: string;
  usage: string;
  /**
   * Owner-only: refused before connecting when this process runs under a
   * delegation (conformance/spec/security-model.txt, "Delegated runs"); the daemon refuses again on its own evidence.
   */
  management: boolean | ((values: CommandRun["values"], positionals: readonly string[]) => boolean);
  options?: ParseArgsConfig["options"];
  execute(run: CommandRun): Promise<number | ProgramExit>;
  /**
   * What the shell's TAB offers for a string flag's value or for the Nth argument (completion.ts): names from the
   * running daemon or the configuration, where that is cheap; nothing offered lets the shell complete file names.
   */
  complete?(home: VenomHome, at: { flag: string } | { argument: number }): Promise<readonly string[]>;
}

export interface Program {
  name: string;
  description: string;
  commands: readonly Command[];
  /** Lines of honest limits printed in --help. */
  limits: readonly string[];
  /** Where to run management commands instead, said when they are refused under a delegation. */
  outside?: string;
}

/**
 * The exit code of a program a command waited for (`venom-mux wait --exit`):
 * the process exits with it, but the command did what it was asked, so a
 * sequence goes on after it (`wait --exit \; kill`).
 */
export class ProgramExit {
  constructor(readonly code: number) {}
}

export class UsageError extends Error {}
