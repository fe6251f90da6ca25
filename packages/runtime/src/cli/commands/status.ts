import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";
import { connectCli } from "./connect.js";

export function statusCommand(app: CliApp): Command {
  return {
    name: "status",
    summary: "show whether the daemon runs, and who it thinks you are",
    usage: "status",
    management: false,
    async execute({ home, json, io }) {
      const client = await connectCli(app, home);
      try {
        const status = await client.request("daemon/status");
        const { principal, grant } = client.hello;
        if (json) {
          io.out(JSON.stringify({ ...status, principal, grant }));
          return Exit.ok;
        }
        io.out(`${status.server.name} ${status.server.version} running (pid ${status.pid}, up ${status.uptimeSeconds}s)`);
        io.out(`  workspace:   ${status.workspace}`);
        io.out(`  connections: ${status.connections}, active calls: ${status.activeCalls}`);
        io.out(
          `  you are:     ${principal.kind}${principal.depth > 0 ? ` at depth ${principal.depth} (parent ${principal.parent ?? "unknown"})` : ""}`,
        );
        io.out(`  your tools:  ${grant.tools.join(", ") || "(none)"}; approval policy ${grant.policy}`);
        for (const notice of new Set([...status.notices, ...(client.hello.notices ?? [])])) io.out(`  notice: ${notice}`);
        return Exit.ok;
      } finally {
        client.close();
      }
    },
  };
}
