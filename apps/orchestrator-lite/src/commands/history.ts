import { terminalLine } from "@venom/proto";
import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";

/** `venom-orch history [--job J] [--json]` (docs/venom-orch.md, "History"): who answered which question, oldest first. */
export function historyCommand(_app: CliApp): Command {
  return {
    name: "history",
    summary: "every question asked and who answered it (the inbox, the terminal, the policy, a bound), oldest first",
    usage: "history [--job JOB] [--json]",
    management: false,
    options: { job: { type: "string" } },
    async execute({ home, json, io, values, positionals }) {
      if (positionals.length > 0) throw new UsageError("history takes no arguments (--job JOB narrows it)");
      const job = typeof values.job === "string" ? values.job : undefined;
      // Loaded here: the daemon-side runtime it reads with is not worth every command's start time.
      const { readHistory } = await import("../history.js");
      const entries = readHistory(home).filter((e) => job === undefined || e.job === job || e.name === job);
      if (json) {
        io.out(JSON.stringify({ entries }));
        return Exit.ok;
      }
      for (const e of entries) {
        const decision = e.decision === "approve" ? "approved" : "denied";
        const line = `${e.answeredAt} ${e.name} ${e.label} ${e.tool} (${e.risk}) ${decision} by ${e.by}${e.reason ? `: ${e.reason}` : ""}`;
        io.out(terminalLine(line, 600));
        io.out(`  ${terminalLine(e.summary, 400)}`);
      }
      if (entries.length === 0) io.err("no approvals on record");
      return Exit.ok;
    },
  };
}
