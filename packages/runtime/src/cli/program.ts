import { type ParseArgsConfig, parseArgs } from "node:util";
import { ErrorCode, parseMarkers, terminalSafe } from "@venom/proto";
import { VenomHome } from "../home.js";
import { SANDBOX_HELP } from "../notices.js";
import { RpcRemoteError } from "../rpc.js";
import { type Command, type CommandRun, Exit, type Io, type Program, ProgramExit, UsageError } from "./command.js";
import { NotRunning, OwnerContextRequired } from "./commands/connect.js";
import { withCompletion } from "./completion.js";
import { CliConnections } from "./connections.js";

export { type Command, type CommandRun, Exit, type Io, type Program, ProgramExit, UsageError } from "./command.js";

const globalOptions = { json: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

export function help(program: Program): string {
  const width = Math.max(...program.commands.map((c) => c.name.length));
  return [
    `${program.name}: ${program.description}`,
    "",
    "Usage:",
    ...program.commands.map(
      (c) => `  ${program.name} ${c.name.padEnd(width)}  ${c.summary}${c.aliases?.length ? ` (also: ${c.aliases.join(", ")})` : ""}`,
    ),
    "",
    "Every command takes --json (machine-readable output) and --help.",
    `Sequences, as in tmux: ${program.name} A \\; B runs B unless A failed (exited non-zero; the exit code of a program A waited`,
    "  for is no failure); the exit code is the failed command's, else the first program's. An argument \\; (a backslash and a",
    "  semicolon) is a literal semicolon.",
    `Environment: VENOM_HOME (instance root, default ~/.venom; a custom home never falls back to it).`,
    "Exit codes: 0 ok, 1 failed, 2 usage, 3 refused (needs the owner context), 4 daemon not running, 141 its output was",
    "  closed early (`| head`), as SIGPIPE ends a C tool.",
    "",
    "Security:",
    `  ${SANDBOX_HELP}.`,
    ...program.limits.map((line) => `  ${line}`),
  ].join("\n");
}

function commandHelp(program: Program, command: Command): string {
  const aliases = command.aliases?.length ? ["", `Also: ${command.aliases.join(", ")}`] : [];
  return [`Usage: ${program.name} ${command.usage}`, ...aliases, "", command.summary, "", `  ${SANDBOX_HELP}.`].join("\n");
}

const stdio: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** How a command ends when its reader stops early: 128 + SIGPIPE, the status a shell gives a C tool that SIGPIPE ended. */
const CLOSED_OUTPUT = 141;

/**
 * A reader that stops early (`venom-mux ls | head -1`) closes the pipe, and
 * the next write fails with EPIPE (Node ignores SIGPIPE). The command ends
 * there, quietly, with the status SIGPIPE gives tmux or git in that place;
 * an unhandled EPIPE was a stack trace on stderr and exit 1.
 */
function endWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(CLOSED_OUTPUT);
    });
  }
}

/**
 * Parse a command's arguments as getopt does (a string option takes the next
 * argument, even `-100` or `-`: tmux users write `-S -100` and `-E -`),
 * saying plainly what was wrong: an unknown flag, a missing value, a value
 * given to a flag that takes none.
 */
export function parseCommandArgs(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig["options"]>,
): Pick<CommandRun, "values" | "positionals"> {
  const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: false, tokens: true });
  for (const token of parsed.tokens) {
    if (token.kind !== "option") continue;
    const option = options[token.name];
    if (!option) throw new UsageError(`unknown flag ${token.rawName}`);
    if (option.type === "string" && token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
    if (option.type === "boolean" && token.inlineValue) throw new UsageError(`${token.rawName} takes no value`);
  }
  return { values: parsed.values as CommandRun["values"], positionals: parsed.positionals };
}

/**
 * Every line a command prints passes here: names, paths, errors and notices
 * come from agents, programs and repositories, so their control characters and
 * bidi overrides are escaped (JSON output already escapes C0; this adds C1 and bidi).
 */
function escaping(io: Io): Io {
  return { out: (line) => io.out(terminalSafe(line)), err: (line) => io.err(terminalSafe(line)) };
}

/**
 * tmux's command sequences: the shell passes `A \; B` as A, ";", B. A lone
 * ";" separates commands; "\;" is a literal semicolon. Empty commands (a
 * trailing ";") are dropped.
 */
function commandSequence(argv: readonly string[]): string[][] {
  const sequence: string[][] = [[]];
  for (const arg of argv) {
    if (arg === ";") sequence.push([]);
    else (sequence.at(-1) as string[]).push(arg === "\\;" ? ";" : arg);
  }
  const commands = sequence.filter((args) => args.length > 0);
  return commands.length > 0 ? commands : [[]];
}

/**
 * Run a program's command line: one command, or a sequence of them that ends
 * at the first one to fail (as tmux ends one at an error), a failure being
 * any exit code but 0 or a ProgramExit. Returns the failed command's code,
 * else the first code a ProgramExit reported, else 0.
 */
export async function runProgram(table: Program, argv: readonly string[], rawIo: Io = stdio): Promise<number> {
  if (rawIo === stdio) endWhenOutputCloses();
  const program = withCompletion(table);
  const io = escaping(rawIo);
  const connections = new CliConnections();
  try {
    let reported: number = Exit.ok;
    for (const args of commandSequence(argv)) {
      const outcome = await runCommand(program, args, io, connections);
      if (outcome instanceof ProgramExit) reported ||= outcome.code;
      else if (outcome !== Exit.ok) return outcome;
    }
    return reported;
  } finally {
    connections.close();
  }
}

async function runCommand(program: Program, argv: readonly string[], io: Io, connections: CliConnections): Promise<number | ProgramExit> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.out(help(program));
    return name === undefined ? Exit.usage : Exit.ok;
  }
  const command = program.commands.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) {
    io.err(`${program.name}: unknown command "${name}"; run ${program.name} --help`);
    return Exit.usage;
  }
  // A usage error is JSON too when --json was asked for, even if it is the parse that failed (flags before a `--`).
  const ended = rest.indexOf("--");
  const usage = (message: string, json = (ended === -1 ? rest : rest.slice(0, ended)).includes("--json")) => {
    if (json) io.out(JSON.stringify({ error: "usage", message, usage: `${program.name} ${command.usage}` }));
    else io.err(`${program.name} ${name}: ${message}\nUsage: ${program.name} ${command.usage}`);
    return Exit.usage;
  };
  let parsed: Pick<CommandRun, "values" | "positionals">;
  try {
    parsed = parseCommandArgs(rest, { ...globalOptions, ...command.options });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    io.out(commandHelp(program, command));
    return Exit.ok;
  }
  const json = values.json === true;
  const management = typeof command.management === "function" ? command.management(values, parsed.positionals) : command.management;
  if (management) {
    const markers = parseMarkers(process.env);
    if (markers.depth > 0) {
      const message = `${program.name} ${name}: refused: this process runs under a Venom delegation (depth ${markers.depth}); managing a daemon needs the owner context. ${program.outside ?? "Run it from a terminal outside the delegated process."}`;
      if (json) io.out(JSON.stringify({ error: "owner-context-required", depth: markers.depth, message }));
      else io.err(message);
      return Exit.refused;
    }
  }
  try {
    return await command.execute({ home: VenomHome.fromEnv(), json, values, positionals: parsed.positionals, io, connections });
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message, json);
    const message = error instanceof Error ? error.message : String(error);
    const notRunning = error instanceof NotRunning;
    // The daemon refused on its own evidence (owner context, depth limit): the same exit code as the CLI's own refusal.
    const refused =
      error instanceof OwnerContextRequired ||
      (error instanceof RpcRemoteError && (error.code === ErrorCode.OwnerRequired || error.code === ErrorCode.DepthLimit));
    if (json) io.out(JSON.stringify({ error: notRunning ? "not-running" : refused ? "refused" : "failed", message }));
    else io.err(`${program.name} ${name}: ${message}`);
    return notRunning ? Exit.notRunning : refused ? Exit.refused : Exit.failed;
  }
}
