import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { withMux } from "./client.js";
import { keyBytes } from "./keys.js";
import { takeTarget, targetOption } from "./target.js";

/** tmux `send-keys`: key names (Enter, C-c, Up…) become keys, other words are typed; -l types everything literally. */
export function sendCommand(app: CliApp): Command {
  return {
    name: "send",
    summary: "type into a pane: send [-t] TARGET TEXT|KEY… [--enter] [-l]",
    usage: "send [-t] TARGET TEXT|KEY… [--enter] [-l literal]",
    management: false,
    options: { ...targetOption, enter: { type: "boolean" }, literal: { type: "boolean", short: "l" } },
    async execute(run) {
      const { target, rest } = takeTarget(run);
      if (rest.length === 0 && !run.values.enter) throw new UsageError("nothing to send");
      const data = run.values.literal ? rest.join(" ") : rest.map(keyBytes).join("");
      const result = await withMux(app, run.home, (client) =>
        client.request("pane/send", { target, data, enter: run.values.enter === true }),
      );
      if (run.json) run.io.out(JSON.stringify(result));
      return Exit.ok;
    },
  };
}
