import { paneExitCode, waitForPane } from "@venom/client";
import { type CliApp, Exit, ProgramExit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import type { MuxCommand } from "./command.js";

/** Exit code when the timeout passed first (as timeout(1)). */
const TIMED_OUT = 124;

/**
 * Wait for a pane, in one call instead of a polling loop: until its program
 * exits (the default, --exit: exit with its code, 128+N for a signal), until
 * its screen shows REGEX (--for), or until it prints nothing for MS
 * milliseconds (--quiet); 124 on timeout.
 */
export function waitCommand(app: CliApp): MuxCommand {
  return {
    name: "wait",
    summary: "wait for a pane: until it exits (its code), shows REGEX or goes quiet: wait [-t] TARGET [--for RE | --quiet MS | --exit]",
    usage:
      "wait [-t] TARGET [--exit | --for REGEX | --quiet MS] [--timeout SECONDS]\n\n" +
      "--exit (the default): until the program exits; exits with its code (128+N for a signal), and a\n" +
      "  sequence (wait --exit \\; kill) goes on after it: that code is no failure of the wait.\n" +
      "--for REGEX: until a line of the screen matches REGEX (JavaScript syntax); 0, or 1 if the\n" +
      "  program exits first. The regex runs in this command, never in the daemon.\n" +
      "--quiet MS: until the pane has printed nothing for MS milliseconds; 0, or the program's code if it exits first.\n" +
      "--timeout: 124 when it passes first.",
    management: false,
    target: "pane",
    args: { max: 0 },
    options: {
      timeout: { type: "string" },
      for: { type: "string" },
      quiet: { type: "string" },
      exit: { type: "boolean" },
    },
    async execute(run) {
      const target = run.target as string;
      const timeout = run.values.timeout === undefined ? undefined : Number(run.values.timeout);
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
      const chosen = ["for", "quiet", "exit"].filter((flag) => run.values[flag] !== undefined);
      if (chosen.length > 1) throw new UsageError(`choose one of --for, --quiet and --exit (got --${chosen.join(" and --")})`);
      const deadline = timeout === undefined ? undefined : Date.now() + timeout * 1000;
      const pattern = run.values.for === undefined ? undefined : regex(run.values.for as string);
      const quietMs = run.values.quiet === undefined ? undefined : Number(run.values.quiet);
      if (quietMs !== undefined && !(Number.isInteger(quietMs) && quietMs > 0))
        throw new UsageError("--quiet takes a positive number of milliseconds");
      const result = await withMux(app, run, (client) =>
        waitForPane(client, target, {
          ...(pattern ? { for: pattern } : {}),
          ...(quietMs ? { quietMs } : {}),
          ...(deadline ? { deadline } : {}),
        }),
      );
      if (run.json) run.io.out(JSON.stringify(result));
      if (result.reason === "timeout") return TIMED_OUT;
      if (result.reason === "match" || result.reason === "quiet") return Exit.ok;
      // It exited: for --for that is a failure to show the pattern, for --quiet to go quiet. For --exit it is what was
      // waited for: the program's own code, after which a sequence goes on.
      if (pattern) return Exit.failed;
      const code = paneExitCode(result.pane) ?? Exit.failed;
      return quietMs ? code : new ProgramExit(code);
    },
  };
}

function regex(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new UsageError(`--for: not a regular expression: ${(error as Error).message}`);
  }
}
