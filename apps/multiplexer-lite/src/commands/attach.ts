import { type CliApp, UsageError } from "@venom/runtime/cli";
import { promptTarget } from "./args.js";
import type { MuxCommand } from "./command.js";

/** tmux `attach`: this terminal shows a pane and types into it until prefix d (default prefix C-b). */
export function attachCommand(app: CliApp): MuxCommand {
  return {
    name: "attach",
    aliases: ["attach-session", "a", "at"],
    summary: "attach this terminal to a pane (prefix C-b, then d detaches): attach [-t] [TARGET]",
    usage:
      "attach [--exit-with-pane] [-t] [TARGET]   (no target: the newest running pane)\n\n" +
      "When the pane's program exits you move to the last or next running pane; with --exit-with-pane, attach ends there ([exited]).\n" +
      "After the prefix (C-b, or [mux] prefix in config.toml): d detach, n/p next/previous pane, 0-9 pane by index,\n" +
      "l last pane, w choose a pane, c new pane, x kill the pane, , rename it, : command prompt, the prefix again sends it;\n" +
      "list-keys lists them as bound ([mux.bindings] in config.toml changes them).\n" +
      "The status line below the pane lists the panes ([mux] status = false turns it off).\n" +
      '--via \'["ssh", "HOST", "venom-mux", "dial-stdio"]\' reaches the daemon through that command\'s stdin and stdout\n' +
      "(a JSON argv, run without a shell), as venom-orch attach does for a job on another host (docs/remote.md).",
    management: false,
    target: "pane",
    targetOptional: true,
    args: { max: 0 },
    options: { "exit-with-pane": { type: "boolean" }, via: { type: "string" } },
    async execute(run) {
      if (run.json) throw new UsageError("attach is interactive; --json is not supported (use ls --json or capture --json)");
      // Loaded here: the attached client (and the configuration it reads) is not worth the start time of ls, send or capture.
      const via = run.values.via === undefined ? undefined : bridgeArgv(run.values.via as string);
      const { attachTo } = await import("../attach/attach.js");
      return attachTo(app, run.home, run.target, { exitWithPane: run.values["exit-with-pane"] === true, ...(via ? { via } : {}) });
    },
    async prompt(host, run) {
      // tmux's attach-session at the prompt moves this client to the session named.
      await host.switchTo(promptTarget(host, run));
      return { drew: true };
    },
  };
}

/** --via's value: a JSON array of at least one non-empty string, or a usage error saying so. */
function bridgeArgv(value: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((arg) => typeof arg === "string" && arg !== "")) {
    throw new UsageError('--via takes a JSON array of the bridge\'s argv, e.g. \'["ssh", "devbox", "venom-mux", "dial-stdio"]\'');
  }
  return parsed;
}
