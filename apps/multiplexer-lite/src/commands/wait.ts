import { constants } from "node:os";
import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import { takeTarget, targetOption } from "./target.js";

/** Wait for a pane's program to exit; the exit code is the program's (128+N for a signal), 124 on timeout. */
export function waitCommand(app: CliApp): Command {
  return {
    name: "wait",
    summary: "wait until a pane's program exits, and exit with its code: wait [-t] TARGET [--timeout S]",
    usage: "wait [-t] TARGET [--timeout SECONDS]",
    management: false,
    options: { ...targetOption, timeout: { type: "string" } },
    async execute(run) {
      const { target } = takeTarget(run);
      const timeout = run.values.timeout === undefined ? undefined : Number(run.values.timeout);
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
      const result = await withMux(app, run.home, (client) =>
        client.request("pane/wait", { target, ...(timeout ? { timeoutSeconds: timeout } : {}) }),
      );
      if (run.json) run.io.out(JSON.stringify(result));
      if (result.timedOut) return 124;
      const { exitCode, signal } = result.pane;
      if (signal) return 128 + (signalNumber(signal) ?? 0);
      return exitCode ?? Exit.failed;
    },
  };
}

function signalNumber(name: string): number | undefined {
  return (constants.signals as Record<string, number>)[name];
}
