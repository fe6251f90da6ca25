import { type CliApp, Exit } from "@venom/runtime/cli";
import type { MuxCommand } from "./command.js";

/** tmux `list-keys`: the prefix table as an attached client reads it (defaults, the prefix's own, [mux.bindings]). */
export function listKeysCommand(app: CliApp): MuxCommand {
  return {
    name: "list-keys",
    aliases: ["lsk"],
    summary: "list the keys after the prefix and the command each runs ([mux.bindings] changes them): list-keys [-N]",
    usage:
      "list-keys [-N notes]\n\n" +
      'Each line is tmux\'s: bind-key -T prefix KEY COMMAND. In config.toml, [mux.bindings] K = "kill-pane" binds K, x = "" unbinds x;\n' +
      "a binding runs its command line as the : prompt would.",
    management: false,
    target: "none",
    args: { max: 0 },
    options: { notes: { type: "boolean", short: "N" } },
    async execute(run) {
      // Loaded here: the configuration is not worth the start time of the other commands.
      const { clientSettings } = await import("../attach/settings.js");
      const { prefixName, bindings } = await clientSettings(app, run.home);
      if (run.json) run.io.out(JSON.stringify(bindings));
      else if (run.values.notes) {
        const width = Math.max(...bindings.map((b) => b.key.length));
        for (const b of bindings) run.io.out(`${prefixName} ${b.key.padEnd(width)}  ${b.note || b.command}`);
      } else {
        const width = Math.max(...bindings.map((b) => b.key.length));
        for (const b of bindings) run.io.out(`bind-key -T prefix ${b.key.padEnd(width)} ${b.command}`);
      }
      return Exit.ok;
    },
  };
}
