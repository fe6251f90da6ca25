import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Check, design, rfc0008 } from "../check.js";
import type { CheckContext } from "../context.js";
import { markedCalls } from "../probes.js";
import { expect, fail } from "../verdict.js";

/** Regular files under `dir`, recursively (sockets and links are not logs). */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : entry.isFile() ? [path] : [];
  });
}

const LOGS_RULE = rfc0008(
  "Secrets and sensitive data",
  "errors, ordinary logs, events, snapshots, replay, plugin manifests, and TUI diagnostics;",
);

/** The regular files under $VENOM_HOME/logs, each with its text; a run without a home cannot look. */
function logs(ctx: CheckContext): { file: string; text: string }[] {
  const home = ctx.target.home;
  if (!home) fail("no instance home: pass --home so the daemon's logs can be scanned");
  return files(join(home, "logs")).map((file) => ({ file, text: readFileSync(file, "utf8") }));
}

export const secretsChecks: readonly Check[] = [
  {
    id: "secrets/logs",
    level: "MUST",
    requirement: LOGS_RULE,
    also: [
      design(
        "Secrets and logs",
        "Nothing secret, no prompt text, no tool output enters logs or events in the first place; redaction config is a second line, not the first.",
      ),
    ],
    expected:
      "after approved calls whose output carries markers the suite chose (an echo, a read of a secret planted in a `.env`, a run), no file under $VENOM_HOME/logs holds any of that output",
    needs: ["echo", "read", "run"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "logs", approve: "approve" });
      const { inOutput } = await markedCalls(ctx, client);
      // A round trip after the calls: whatever the daemon logs about them is written by the time it answers.
      await client.request("daemon/status");
      const found = logs(ctx).flatMap(({ file, text }) =>
        inOutput.filter((value) => text.includes(value)).map((value) => `${file}: ${value}`),
      );
      expect(found.length === 0, `call output reached the logs: ${found.join("; ")}`);
      return `${inOutput.length} marked outputs, none in the logs`;
    },
  },
  {
    id: "secrets/canary",
    level: "MUST",
    requirement: LOGS_RULE,
    also: [
      rfc0008(
        "Acceptance",
        "Security tests scan generated/release artifacts for canary secrets, prove all tool routes hit a dispatcher decorator, verify endpoint permissions and digest changes, exercise process/plugin uncertain outcomes, and audit standalone module graphs.",
      ),
      rfc0008(
        "Rejected claims",
        "Redaction after logging is insufficient; sensitive values must not enter the event/log value in the first place.",
      ),
    ],
    expected:
      "a canary secret in the daemon's environment never appears in anything the daemon sent during the whole run (results, errors, events, snapshots), in what it printed, or in any file under $VENOM_HOME/logs; runs last. Without a known canary (--canary, or --target) this is a warning",
    async run(ctx) {
      // Traffic that tends to carry diagnostics: status, errors, a failing tool.
      const { client } = await ctx.session({ label: "canary" });
      await client.request("daemon/status");
      await client.request("conformance/no-such-method");
      await client.request("tools/call", { name: "conformance-no-such-tool", arguments: {} });
      await client.request("tools/call", { name: 42 });
      if (ctx.tool("read")) await client.request("tools/call", { name: "read", arguments: { path: "venom-conformance-absent/none.txt" } });
      const canary = ctx.target.canary;
      if (!canary) {
        ctx.should(false, "no canary known: start the daemon with a secret in its environment and pass it as --canary, or use --target");
        return "nothing to look for";
      }
      const scanned = logs(ctx);
      const seen = [...new Set(ctx.run.secrets.exposures)];
      if (ctx.target.diagnostics?.().includes(canary)) seen.push("the daemon's stdout/stderr");
      for (const { file, text } of scanned) if (text.includes(canary)) seen.push(file);
      expect(seen.length === 0, `the canary came back in: ${seen.join(", ")}`);
      return `the canary is in no reply of the run and in none of ${scanned.length} log files`;
    },
  },
];
