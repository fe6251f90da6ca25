import { resolve } from "node:path";
import type { CliApp } from "../app.js";
import { type Command, Exit, UsageError } from "../program.js";
import { connectCli } from "./connect.js";

/** Call one tool. On a terminal, approvals are asked y/N; without one, they deny. */
export function callCommand(app: CliApp): Command {
  return {
    name: "call",
    summary: "call a tool: call TOOL JSON (asks y/N on a terminal when the server needs approval)",
    usage: "call TOOL [JSON] [--timeout SECONDS] [--workspace DIR]",
    management: false,
    options: { timeout: { type: "string" }, workspace: { type: "string" } },
    // The tools the running daemon offers; none when it is not running (completion never starts one).
    async complete(home, at) {
      if (!("argument" in at) || at.argument !== 0) return [];
      const client = await connectCli(app, home).catch(() => undefined);
      try {
        return client ? (await client.request("tools/list")).tools.map((tool) => tool.name) : [];
      } finally {
        client?.close();
      }
    },
    async execute({ home, json, io, values, positionals }) {
      const [tool, rawArgs = "{}", ...extra] = positionals;
      if (!tool || extra.length > 0) throw new UsageError("expected a tool name and at most one JSON argument");
      let args: unknown;
      try {
        args = JSON.parse(rawArgs);
      } catch {
        throw new UsageError("the tool arguments are not valid JSON");
      }
      if (args === null || typeof args !== "object" || Array.isArray(args))
        throw new UsageError("the tool arguments must be a JSON object");
      const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
      // The daemon takes absolute paths only: a relative one is taken from here.
      const client = await connectCli(app, home, {
        startWith: io,
        ...(values.workspace ? { workspace: resolve(values.workspace as string) } : {}),
      });
      try {
        const result = await client.callTool(tool, args as Record<string, unknown>, timeout ? { timeoutSeconds: timeout } : {});
        if (json) io.out(JSON.stringify(result));
        else {
          if (result.content) io.out(result.content.replace(/\n$/, ""));
          if (result.status !== "ok") io.err(`${app.program}: ${result.status}: ${result.error?.message ?? ""}`);
        }
        return result.status === "ok" ? Exit.ok : Exit.failed;
      } finally {
        client.close();
      }
    },
  };
}
