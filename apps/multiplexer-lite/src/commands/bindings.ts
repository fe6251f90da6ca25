import type { CliApp } from "@venom/runtime/cli";
import { encodeKey, parseKey } from "../common/keys.js";
import type { MuxCommand } from "./command.js";
import { checkCommandLine } from "./command-line.js";

/** A key of the prefix table (tmux's `bind -N NOTE KEY COMMAND`): the key after the prefix runs `command`, a line of the `:` prompt. */
export interface KeyBinding {
  /** The key as tmux names it: `d`, `K`, `,`, `C-o`, `Space`, `F5`. */
  key: string;
  command: string;
  note: string;
}

/**
 * tmux's default prefix table, where venom-mux has the same thing (tmux's key-bindings.c); the prefix key itself is
 * bound to send-prefix (prefixBinding). `[mux.bindings]` in config.toml changes it (keyBindings).
 */
export const DEFAULT_BINDINGS: readonly KeyBinding[] = [
  { key: "d", command: "detach-client", note: "Detach the client" },
  { key: "n", command: "next-window", note: "Show the next pane" },
  { key: "p", command: "previous-window", note: "Show the previous pane" },
  { key: "l", command: "last-window", note: "Show the last pane shown" },
  { key: "w", command: "choose-tree", note: "Choose a pane from a list" },
  { key: "s", command: "choose-tree", note: "Choose a pane from a list" },
  { key: ":", command: "command-prompt", note: "Prompt for a command" },
  { key: ",", command: `command-prompt -I '#W' 'rename-window -- "%%"'`, note: "Rename the pane shown" },
  { key: "c", command: "new-window", note: "Open a new pane and show it" },
  { key: "x", command: "confirm-before -p 'kill-pane #D? (y/n)' kill-pane", note: "Kill the pane shown" },
  ...[..."0123456789"].map((digit) => ({ key: digit, command: `select-window -t ${digit}`, note: `Show pane ${digit}` })),
];

/**
 * `command` as --help shows it: its summary followed by the keys that run it in tmux's default table, read from
 * DEFAULT_BINDINGS so that help never says a key the table does not bind.
 */
export function withDefaultKeys<C extends { name: string; aliases?: readonly string[]; summary: string }>(command: C): C {
  const names = [command.name, ...(command.aliases ?? [])];
  const keys = DEFAULT_BINDINGS.filter((binding) => names.includes(binding.command.split(" ")[0] ?? "")).map((b) => b.key);
  if (keys.length === 0) return command;
  const prefix = `prefix ${keys.join(" ")}`;
  const atPrompt = command.summary.endsWith("(: prompt)");
  return { ...command, summary: atPrompt ? `${command.summary.slice(0, -1)}, ${prefix})` : `${command.summary} (${prefix})` };
}

/** The prefix typed twice types it (tmux binds C-b send-prefix; here the binding follows [mux] prefix). */
function prefixBinding(prefix: string): KeyBinding {
  return { key: prefix, command: "send-prefix", note: "Send the prefix key" };
}

/** The keys typed in a terminal that need none of its modes to say (cursor keys in normal mode). */
const NORMAL_MODES = { applicationCursor: false, applicationKeypad: false, bracketedPaste: false };

/** What a terminal sends for the key tmux names `name` (one character, or a key name: C-o, M-x, Space, F5); undefined if it names no key. */
export function keyBytes(name: string): string | undefined {
  const key = parseKey(name);
  if (key) return encodeKey(key, NORMAL_MODES);
  return [...name].length === 1 ? name : undefined;
}

/**
 * The prefix table: the defaults, the prefix's own, then `[mux.bindings]` (`K = "kill-pane"` binds K, `x = ""`
 * unbinds x), one binding a key, sorted as tmux's list-keys sorts.
 */
export function keyBindings(prefix: string, configured: Readonly<Record<string, string>>): KeyBinding[] {
  const table = new Map<string, KeyBinding>();
  for (const binding of [...DEFAULT_BINDINGS, prefixBinding(prefix)]) table.set(keyBytes(binding.key) as string, binding);
  for (const [key, command] of Object.entries(configured)) {
    const bytes = keyBytes(key);
    if (bytes === undefined) continue;
    if (command === "") table.delete(bytes);
    else table.set(bytes, { key, command, note: "" });
  }
  return [...table.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** What is wrong with binding `key` to `command` in `[mux.bindings]`, if anything; undefined when it is fine. */
export function bindingProblem(app: CliApp, commands: readonly MuxCommand[], key: string, command: string): string | undefined {
  if (keyBytes(key) === undefined) return `"${key}" is not one key; name it as tmux does: d, K, ",", C-o, M-x, Space, F5`;
  if (command === "") return undefined;
  try {
    checkCommandLine(app, commands, command);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
