import type { VenomHome } from "../home.js";
import { type Command, Exit, type Program, UsageError } from "./command.js";

/**
 * Shell completion from the one command table (docs/venom-mux.md, "Shell completion"): the script a shell sources
 * asks the program itself what fits the word under the cursor (`PROGRAM completion --words`, the line's words on
 * stdin, one per line), so commands, aliases and flags are never listed twice, and names come from the running
 * daemon (panes, jobs) or the configuration (agents) when a command declares `complete`.
 */

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/**
 * What may be offered: a name from a daemon is text an agent may have chosen, and the shell inserts a candidate into
 * the command line as typed text, so only plain words are offered (no quotes, `$`, spaces or control characters).
 */
const OFFERABLE = /^[\w%@.:+,=/-]{1,128}$/;

const GLOBAL_FLAGS = ["--json", "--help"];

/** Every program's table with its `completion` command, which completes itself too. */
export function withCompletion(table: Program): Program {
  const program: Program = { ...table };
  program.commands = [...table.commands, completionCommand(program)];
  return program;
}

/** `PROGRAM completion bash|zsh|fish` prints the script; `--words` answers the script. */
function completionCommand(program: Program): Command {
  return {
    name: "completion",
    summary: "print shell completion for bash, zsh or fish: completion SHELL (source <(PROGRAM completion bash))",
    usage: `completion bash|zsh|fish\n\nbash: add \`source <(${program.name} completion bash)\` to ~/.bashrc; zsh: \`source <(${program.name} completion zsh)\` after compinit;\nfish: \`${program.name} completion fish > ~/.config/fish/completions/${program.name}.fish\`.`,
    management: false,
    options: { words: { type: "boolean" } },
    complete: async (_home, at) => ("argument" in at && at.argument === 0 ? SHELLS : []),
    async execute({ home, values, positionals, io }) {
      if (values.words) {
        for (const candidate of await completions(program, home, await stdinLines())) io.out(candidate);
        return Exit.ok;
      }
      const [shell, ...extra] = positionals;
      if (!SHELLS.includes(shell as Shell) || extra.length > 0) throw new UsageError("expected one shell: bash, zsh or fish");
      io.out(script(program.name, shell as Shell));
      return Exit.ok;
    },
  };
}

/** The candidates for the last of `words` (the words after the program's name; the last one may be empty). */
export async function completions(program: Program, home: VenomHome, words: readonly string[]): Promise<string[]> {
  // A sequence (`A \; B`): only the command the cursor is in counts.
  const start = words.findLastIndex((word, i) => i < words.length - 1 && (word === ";" || word === "\\;")) + 1;
  const [name, ...rest] = words.slice(start);
  const current = rest.at(-1) ?? name ?? "";
  const fitting = (candidates: readonly string[]) =>
    [...new Set(candidates)].filter((candidate) => candidate.startsWith(current) && OFFERABLE.test(candidate));
  if (rest.length === 0) return fitting(program.commands.flatMap((command) => [command.name, ...(command.aliases ?? [])]));
  const command = program.commands.find((c) => c.name === name || c.aliases?.includes(name as string));
  if (!command) return [];
  const flags = Object.entries(command.options ?? {});
  const before = rest.at(-2);
  const flagBefore = flags.find(([long, option]) => option.type === "string" && (before === `--${long}` || before === `-${option.short}`));
  if (flagBefore) return fitting((await command.complete?.(home, { flag: flagBefore[0] })) ?? []);
  if (current.startsWith("-")) {
    return fitting([...flags.flatMap(([long, option]) => [`--${long}`, ...(option.short ? [`-${option.short}`] : [])]), ...GLOBAL_FLAGS]);
  }
  const argument = argumentsBefore(rest.slice(0, -1), flags);
  return fitting((await command.complete?.(home, { argument })) ?? []);
}

/** How many arguments (not flags, not a flag's value) come before the cursor. */
function argumentsBefore(words: readonly string[], flags: [string, { type: string; short?: string }][]): number {
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === "--") return count + words.length - i - 1;
    if (!word.startsWith("-") || word === "-") count++;
    else if (flags.some(([long, option]) => option.type === "string" && (word === `--${long}` || word === `-${option.short}`))) i++;
  }
  return count;
}

function stdinLines(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => {
      text += chunk;
      // A command line, not a file: a runaway writer is cut off.
      if (text.length > 65_536) process.stdin.destroy();
    });
    process.stdin.once("error", reject);
    process.stdin.once("close", () => resolve(text.replace(/\n$/, "").split("\n")));
  });
}

/** The script for `shell`: it hands the words up to the cursor to `PROGRAM completion --words` and offers its lines. */
function script(name: string, shell: Shell): string {
  const fn = `_${name.replace(/-/g, "_")}_complete`;
  if (shell === "bash") {
    return [
      `# bash completion for ${name}: source <(${name} completion bash)`,
      `${fn}() {`,
      `  local IFS=$'\\n'`,
      `  COMPREPLY=($(printf '%s\\n' "\${COMP_WORDS[@]:1:COMP_CWORD}" | ${name} completion --words 2>/dev/null))`,
      `}`,
      `complete -o default -F ${fn} ${name}`,
    ].join("\n");
  }
  if (shell === "zsh") {
    return [
      `#compdef ${name}`,
      `# zsh completion for ${name}: source <(${name} completion zsh) after compinit`,
      `${fn}() {`,
      `  local -a candidates`,
      `  candidates=("\${(@f)$(printf '%s\\n' "\${(@)words[2,CURRENT]}" | ${name} completion --words 2>/dev/null)}")`,
      `  if (( \${#candidates[@]} )) && [[ -n "\${candidates[1]}" ]]; then compadd -a candidates; else _files; fi`,
      `}`,
      `compdef ${fn} ${name}`,
    ].join("\n");
  }
  return [
    `# fish completion for ${name}: ${name} completion fish > ~/.config/fish/completions/${name}.fish`,
    `function ${fn}`,
    `    set -l words (commandline -opc)[2..-1] (commandline -ct)`,
    `    printf '%s\\n' $words | ${name} completion --words 2>/dev/null`,
    `end`,
    `complete -c ${name} -f -a '(${fn})'`,
  ].join("\n");
}
