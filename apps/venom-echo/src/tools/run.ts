import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { defineTool, ErrorCode, fitEncoded, ProtocolError, type RunDataSchema, RunInputSchema } from "@venom/proto";
import { outputBound, recordPath, removeRecord, resolveCwd, runProcess, sandboxFor, toolEnv, writeRecord } from "@venom/runtime";
import type { z } from "zod";
import type { EchoContext } from "../context.js";

type RunInput = z.infer<typeof RunInputSchema>;

/**
 * Run a program for the session: argv without a shell, or a command through
 * /bin/bash -lc. Its own process group, a wall-clock deadline, bounded output;
 * recorded as a delegation while it runs, so it and its descendants are
 * delegates to every Venom daemon of this instance, whose approvals are
 * relayed to the session that started it. Not sandboxed unless
 * sandbox.mode = "landlock" (then confined to the workspace, with HOME and
 * TMPDIR in $VENOM_HOME/agents/run) or the caller is a confined delegate:
 * then it runs under the delegation's confinement too.
 */
export const runTool = defineTool<RunInput, EchoContext>({
  name: "run",
  description:
    "Run a program in the session workspace (argv without a shell, or command via /bin/bash -lc) in its own process group, with a timeout and bounded output. It runs with your user's full permissions (not sandboxed) unless the configuration sets sandbox.mode = \"landlock\", which confines it with Landlock: hello's notices say which.",
  input: RunInputSchema,
  capabilities: ["fs.read", "fs.write", "process", "network", "env.read"],
  effect: "mutating",
  replay: "unsafe",
  summarize: (input) =>
    `${input.command !== undefined ? `bash -lc ${JSON.stringify(input.command)}` : JSON.stringify(input.argv)}${input.cwd ? ` in ${JSON.stringify(input.cwd)}` : ""}`,
  // Too deep is refused before approval is asked and before anything starts (-32004, as panes and agents are).
  precheck: (_input, { session }) => {
    const depth = session.principal.depth + 1;
    const maxDepth = session.config.agent.max_delegation_depth;
    if (depth > maxDepth) {
      throw new ProtocolError(
        ErrorCode.DepthLimit,
        `refused: the process would run at delegation depth ${depth}, over the limit of ${maxDepth} (agent.max_delegation_depth)`,
      );
    }
  },
  run: async (input, call) => {
    const { session, home, owner, launchers, gate } = call.context;
    const depth = session.principal.depth + 1;
    const id = `echo-${owner.instance.slice(0, 8)}-${randomBytes(4).toString("hex")}`;
    const parent = `${owner.instance}/${id}`;
    const env = toolEnv(process.env, parent, session.principal.depth);
    const cwd = input.cwd ?? ".";
    // Confined as the calling delegation is (its recorded layers), and as the config asks.
    const sandbox = sandboxFor(
      session.config,
      {
        workspace: session.workspace,
        cwd: resolveCwd(cwd, session.workspace),
        home: join(home.agents, "run"),
        records: home.delegations,
        path: env.PATH,
      },
      undefined,
      session.confinement,
    );
    // Before the process starts: its first call to a daemon may need approval at once.
    const forgetLauncher = launchers.add(id, { name: id, grant: session.grant, gate });
    try {
      const result = await runProcess({
        ...(input.argv ? { argv: input.argv } : { command: input.command as string }),
        cwd,
        workspaceRoot: session.workspace,
        env,
        ...(sandbox ? { sandbox } : {}),
        timeoutSeconds: call.timeoutSeconds,
        maxOutputBytes: outputBound(session.config),
        signal: call.signal,
        record: recordPath(home, id),
        onSpawn: (spawned) =>
          writeRecord(home, {
            id,
            owner,
            pid: spawned.pid,
            startTime: spawned.startTime,
            pgid: spawned.pgid,
            parent,
            depth,
            grant: session.grant,
            label: `[echo run ${call.callId}]`,
            workspace: session.workspace,
            sandbox: sandbox ?? [],
            // What it starts through venom-mux is its agent's, as the caller is (docs/security-model.md, "A delegate's new pane").
            ...(session.agent ? { agent: session.agent } : {}),
            createdAt: new Date().toISOString(),
          }),
      });
      // The end of a command's output matters most: keep the tail within the bound the dispatcher enforces.
      const output = fitEncoded(result.output, outputBound(session.config), "tail");
      const data = {
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        truncated: result.truncated,
        outputBytes: result.outputBytes,
      } satisfies z.input<typeof RunDataSchema>;
      if (result.cancelled) {
        return {
          status: "uncertain",
          content: output,
          data,
          error: { message: "cancelled: the process group was stopped; it may already have had effects", retry: "forbidden" },
        };
      }
      if (result.timedOut) {
        return {
          status: "failed",
          content: output,
          data,
          error: { message: `timed out after ${call.timeoutSeconds}s: the process group was killed`, retry: "forbidden" },
        };
      }
      if (result.exitCode !== 0) {
        const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
        return { status: "failed", content: output, data, error: { message: `the process ${how}`, retry: "forbidden" } };
      }
      return { content: output, data };
    } finally {
      removeRecord(home, id);
      forgetLauncher();
    }
  },
});
