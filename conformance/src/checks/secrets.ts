import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Check, rfc0008 } from "../check.js";
import { expect, fail } from "../verdict.js";

/** Regular files under `dir`, recursively (sockets and links are not logs). */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : entry.isFile() ? [path] : [];
  });
}

export const secretsChecks: readonly Check[] = [
  {
    id: "secrets/canary",
    level: "MUST",
    requirement: rfc0008(
      "Secrets and sensitive data",
      "errors, ordinary logs, events, snapshots, replay, plugin manifests, and TUI diagnostics;",
    ),
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
      const home = ctx.target.home;
      if (!home) fail("no instance home: pass --home so the daemon's logs can be scanned");
      const logs = files(join(home, "logs"));
      const seen = [...new Set(ctx.run.secrets.exposures)];
      if (ctx.target.diagnostics?.().includes(canary)) seen.push("the daemon's stdout/stderr");
      for (const file of logs) if (readFileSync(file, "utf8").includes(canary)) seen.push(file);
      expect(seen.length === 0, `the canary came back in: ${seen.join(", ")}`);
      return `the canary is in no reply of the run and in none of ${logs.length} log files`;
    },
  },
];
