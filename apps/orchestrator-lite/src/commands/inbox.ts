import { isatty } from "node:tty";
import { terminalLine } from "@venom/proto";
import { type CliApp, type Command, Exit, UsageError } from "@venom/runtime/cli";
import { withOrch } from "./client.js";

/**
 * `venom-orch inbox [--json]` (docs/venom-orch.md, "The inbox"): every question waiting for you, from every job at
 * any depth. On a terminal, a full-screen list that answers them; otherwise the list as JSON. Owner only: no agent
 * lists or answers its own or a sibling's question.
 */
export function inboxCommand(app: CliApp): Command {
  return {
    name: "inbox",
    summary: "the questions waiting for you, from every job: y approve, n deny, Enter details, a attach (--json lists them)",
    usage: "inbox [--json]",
    management: true,
    async execute({ home, json, io }) {
      if (json || !isatty(0) || !isatty(1)) {
        return withOrch(app, home, async (client) => {
          const { questions } = await client.request("inbox/list", {});
          io.out(JSON.stringify({ questions }));
          return Exit.ok;
        });
      }
      const { InboxScreen } = await import("../inbox-screen.js");
      return new InboxScreen(app, home).run();
    },
  };
}

/** `venom-orch approve ID` / `venom-orch deny ID [--reason TEXT]`: answer exactly the question ID names. */
export function answerCommand(app: CliApp, decision: "approve" | "deny"): Command {
  return {
    name: decision,
    summary: `${decision} one waiting question by its id (venom-orch inbox --json lists them)`,
    usage: decision === "deny" ? "deny ID [--reason TEXT]" : "approve ID",
    management: true,
    ...(decision === "deny" ? { options: { reason: { type: "string" as const } } } : {}),
    async execute({ home, json, io, values, positionals }) {
      const [id, ...extra] = positionals;
      if (!id || extra.length > 0) throw new UsageError("expected one question id");
      const reason = typeof values.reason === "string" ? values.reason : undefined;
      return withOrch(app, home, async (client) => {
        const { question } = await client.request("inbox/answer", { id, decision, ...(reason ? { reason } : {}) });
        if (json) io.out(JSON.stringify({ question, decision }));
        else
          io.out(
            `${decision === "approve" ? "approved" : "denied"}: ${terminalLine(`${question.name} ${question.label} ${question.tool}`, 300)}`,
          );
        return Exit.ok;
      });
    },
  };
}
