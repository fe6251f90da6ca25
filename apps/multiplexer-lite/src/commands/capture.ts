import { terminalSafe } from "@venom/proto";
import { type CliApp, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/** A tmux line number: an integer, or `-` for the start of history (-S) or the last visible line (-E). */
function lineNumber(value: string | undefined, dash: number | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (value === "-") return dash;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} takes a line number or -`);
  return Number(value);
}

/** tmux `capture-pane -p`: print the pane's screen (and scrollback with -S). */
export function captureCommand(app: CliApp): MuxCommand {
  return {
    name: "capture",
    aliases: ["capture-pane", "capturep"],
    summary: "print a pane's screen: capture [-t] TARGET [-S N] [-E N] [-e] [-J] [-N]",
    usage:
      "capture [-t] TARGET [-S START] [-E END] [-e escapes] [-J join wrapped] [-N keep trailing spaces]\n\n" +
      "Lines count from the top of the screen (0); negative numbers reach into history, - is its first line (-S) or the last\n" +
      "line of the screen (-E); a reversed range is swapped. As tmux: trailing spaces are trimmed unless -N or -J.",
    management: false,
    target: "pane",
    args: { max: 0 },
    options: {
      start: { type: "string", short: "S" },
      end: { type: "string", short: "E" },
      escapes: { type: "boolean", short: "e" },
      join: { type: "boolean", short: "J" },
      trailing: { type: "boolean", short: "N" },
      print: { type: "boolean", short: "p" },
    },
    async execute(run) {
      const target = run.target as string;
      const start = lineNumber(run.values.start as string | undefined, -Number.MAX_SAFE_INTEGER, "-S");
      const end = lineNumber(run.values.end as string | undefined, undefined, "-E");
      const { text } = await withMux(app, run, (client) =>
        client.request("pane/capture", {
          target,
          ...(start !== undefined ? { start: Math.max(start, -1_000_000_000) } : {}),
          ...(end !== undefined ? { end } : {}),
          escapes: run.values.escapes === true,
          join: run.values.join === true,
          trailingSpaces: run.values.trailing === true,
        }),
      );
      if (run.json) run.io.out(JSON.stringify({ text }));
      else process.stdout.write(printable(text));
      return Exit.ok;
    },
  };
}

/**
 * What capture prints: the pane's text, escaped as every text a program
 * controls is (the screen model leaves no control characters, but bidi
 * overrides and isolates are characters of a cell: they become `\uXXXX`),
 * keeping the SGR escapes that -e asked for, which only the model writes.
 */
function printable(text: string): string {
  return text
    .split(SGR)
    .map((part, i) => (i % 2 === 1 ? part : terminalSafe(part)))
    .join("");
}

/** An SGR escape as capture -e writes it, kept by split() as every other part. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: capture -e's SGR escapes begin with ESC.
const SGR = /(\x1b\[[0-9;:]*m)/;
