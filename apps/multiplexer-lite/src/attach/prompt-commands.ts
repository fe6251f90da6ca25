import type { PaneInfo } from "@venom/proto";
import type { VenomClient } from "@venom/runtime/cli";

/** What the `:` prompt's commands may do to the attached client. */
export interface CommandHost {
  readonly client: VenomClient;
  /** The pane this client shows. */
  readonly pane: PaneInfo | undefined;
  size(): { cols: number; rows: number };
  /** Attach another pane (by id, name or index) in place of the current one. */
  switchTo(target: string): Promise<void>;
  cycle(direction: 1 | -1): Promise<void>;
  last(): Promise<void>;
  detach(): void;
  /** The current pane is gone: attach the next running one, or detach with [exited]. */
  leave(pane: PaneInfo): Promise<void>;
  /** daemon/stop; the client ends with [server exited] once the daemon is gone. */
  stopServer(): Promise<void>;
}

/** What a command did: whether it already drew the screen (switched panes, detached), and what to tell the user. */
export interface CommandOutcome {
  drew?: boolean;
  message?: string;
}

export class CommandError extends Error {}

interface PromptCommand {
  names: readonly string[];
  usage: string;
  /** Options before the first other word: true when the option takes a value. */
  options: Record<string, boolean>;
  run(host: CommandHost, options: Record<string, string | true>, args: string[]): Promise<CommandOutcome>;
}

function current(host: CommandHost): PaneInfo {
  if (!host.pane) throw new CommandError("no pane is attached");
  return host.pane;
}

const COMMANDS: readonly PromptCommand[] = [
  {
    names: ["kill-pane", "killp"],
    usage: "kill-pane [-t TARGET]",
    options: { t: true },
    async run(host, options) {
      const target = typeof options.t === "string" ? options.t : current(host).id;
      const { pane } = await host.client.request("pane/kill", { target });
      if (pane.id !== host.pane?.id) return {};
      await host.leave(pane);
      return { drew: true };
    },
  },
  {
    names: ["new-window", "neww", "new"],
    usage: "new-window [-d] [-n NAME] [-c DIR] [ARGV…]",
    options: { d: false, n: true, c: true },
    async run(host, options, argv) {
      const pane = await host.client.request("pane/new", {
        ...(argv.length > 0 ? { argv } : {}),
        ...(typeof options.n === "string" ? { name: options.n } : {}),
        ...(typeof options.c === "string" ? { cwd: options.c } : {}),
        ...host.size(),
      });
      if (options.d) return { message: `new pane ${pane.id} ${pane.name}` };
      await host.switchTo(pane.id);
      return { drew: true };
    },
  },
  {
    names: ["rename-window", "renamew", "rename-pane", "rename"],
    usage: "rename-window [-t TARGET] NAME",
    options: { t: true },
    async run(host, options, args) {
      if (args.length !== 1) throw new CommandError("usage: rename-window [-t TARGET] NAME");
      const target = typeof options.t === "string" ? options.t : current(host).id;
      const pane = await host.client.request("pane/rename", { target, name: args[0] as string });
      if (host.pane && pane.id === host.pane.id) host.pane.name = pane.name;
      return {};
    },
  },
  {
    names: ["select-window", "selectw", "select-pane", "selectp"],
    usage: "select-window -t TARGET",
    options: { t: true },
    async run(host, options) {
      if (typeof options.t !== "string") throw new CommandError("usage: select-window -t TARGET");
      await host.switchTo(options.t);
      return { drew: true };
    },
  },
  {
    names: ["next-window", "next"],
    usage: "next-window",
    options: {},
    async run(host) {
      await host.cycle(1);
      return { drew: true };
    },
  },
  {
    names: ["previous-window", "prev"],
    usage: "previous-window",
    options: {},
    async run(host) {
      await host.cycle(-1);
      return { drew: true };
    },
  },
  {
    names: ["last-window", "last"],
    usage: "last-window",
    options: {},
    async run(host) {
      await host.last();
      return { drew: true };
    },
  },
  {
    names: ["detach-client", "detach"],
    usage: "detach-client",
    options: {},
    async run(host) {
      host.detach();
      return { drew: true };
    },
  },
  {
    names: ["kill-server"],
    usage: "kill-server",
    options: {},
    async run(host) {
      await host.stopServer();
      return { drew: true };
    },
  },
];

/** Every command name the prompt knows, for help and the docs. */
export const PROMPT_COMMANDS = COMMANDS.map((c) => c.usage);

/** Split a command line into words: spaces separate, quotes ('…', "…") and backslashes keep them together. */
export function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) word = (word ?? "") + line[++i];
      else word = (word ?? "") + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word = word ?? "";
    } else if (c === "\\" && i + 1 < line.length) word = (word ?? "") + line[++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (quote) throw new CommandError(`unterminated ${quote} quote`);
  if (word !== undefined) out.push(word);
  return out;
}

/** tmux-style getopt: options come first; the first other word (or `--`) ends them. */
function options(command: PromptCommand, args: string[]): { values: Record<string, string | true>; rest: string[] } {
  const values: Record<string, string | true> = {};
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!/^-[A-Za-z]/.test(arg)) break;
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j] as string;
      const takesValue = command.options[flag];
      if (takesValue === undefined) throw new CommandError(`${command.names[0]}: unknown option -${flag}; usage: ${command.usage}`);
      if (!takesValue) {
        values[flag] = true;
        continue;
      }
      const value = arg.slice(j + 1) || args[++i];
      if (value === undefined) throw new CommandError(`${command.names[0]}: -${flag} needs a value; usage: ${command.usage}`);
      values[flag] = value;
      break;
    }
  }
  return { values, rest: args.slice(i) };
}

/** Run one command line typed at the `:` prompt. */
export async function runPromptCommand(host: CommandHost, line: string): Promise<CommandOutcome> {
  const [name, ...args] = words(line);
  if (name === undefined) return {};
  const command = COMMANDS.find((c) => c.names.includes(name));
  if (!command) throw new CommandError(`unknown command: ${name} (try kill-pane, new-window, rename-window, detach, kill-server)`);
  const { values, rest } = options(command, args);
  if (rest.length > 0 && command.names[0] !== "new-window" && command.names[0] !== "rename-window") {
    throw new CommandError(`usage: ${command.usage}`);
  }
  return command.run(host, values, rest);
}
