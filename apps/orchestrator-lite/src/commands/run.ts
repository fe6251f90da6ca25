import { resolve } from "node:path";
import { terminalSafe } from "@venom/proto";
import { type CliApp, type Command, Exit, startIn, UsageError } from "@venom/runtime/cli";
import { withOrch } from "./client.js";
import { agentNames } from "./names.js";

/**
 * `venom-orch run AGENT PROMPT`: progress (state changes, relayed approvals) on
 * stderr as it happens, the result on stdout. On a terminal approvals are asked
 * y/N; without one they deny. --yes says this client approves everything, and
 * then nothing is asked, on a terminal or not.
 */
export function runCommand(app: CliApp): Command {
  return {
    name: "run",
    summary: "run an agent on a prompt in a venom-mux pane: run AGENT PROMPT (progress on stderr, result on stdout)",
    usage:
      "run AGENT PROMPT [--cwd DIR] [--background] [--worktree [--branch NAME]] [--host NAME] [--timeout SECONDS] [--yes] [--workspace DIR]\n\n" +
      "The agent starts in --cwd DIR (a relative DIR is taken from here), else here when this directory is inside the\n" +
      "workspace, else in the workspace root; DIR must resolve (symlinks followed) inside the workspace.\n" +
      "--worktree runs it in a git worktree of its own (.venom/worktrees/LABEL) made from HEAD, detached at a new\n" +
      "branch venom/LABEL or NAME that follows it when the job ends; a confined agent writes that worktree, its git\n" +
      "entry and the object store: no branch, not your checkout. venom-orch diff, merge and clean JOB take it from there.\n" +
      "--host NAME runs it on another host, [hosts.NAME] of your config.toml, in that host's venom-mux (started there\n" +
      "when not running) reached over ssh or the host's command; the agent is found on that host, its questions come\n" +
      "here labelled @NAME, and the pane stops when this venom-orch ends (docs/remote.md). Not with --cwd or --worktree.",
    management: false,
    complete: async (home, at) => ("argument" in at && at.argument === 0 ? agentNames(app, home) : []),
    options: {
      cwd: { type: "string" },
      background: { type: "boolean" },
      worktree: { type: "boolean" },
      branch: { type: "string" },
      host: { type: "string" },
      timeout: { type: "string" },
      yes: { type: "boolean" },
      workspace: { type: "string" },
    },
    async execute({ home, json, io, values, positionals }) {
      const [agent, prompt, ...extra] = positionals;
      if (values.branch !== undefined && !values.worktree) throw new UsageError("--branch names the branch of a --worktree");
      if (!agent || prompt === undefined) throw new UsageError("expected an agent and a prompt");
      if (values.host !== undefined && (values.cwd !== undefined || values.worktree)) {
        throw new UsageError("--host runs the agent in that host's workspace: --cwd and --worktree are this machine's");
      }
      if (extra.length > 0) throw new UsageError("the prompt must be one argument: quote it");
      if (prompt === "") throw new UsageError("the prompt is empty");
      const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
      const onEvent = (method: string, params: unknown) => {
        const line = progressLine(app.program, method, params);
        if (line !== undefined) io.err(line);
      };
      const options = {
        onEvent,
        startWith: io,
        ...(values.yes ? { autoApprove: true } : {}),
        // The daemon takes absolute paths only: a relative one is taken from here, as --cwd is.
        ...(values.workspace ? { workspace: resolve(values.workspace as string) } : {}),
      };
      return withOrch(
        app,
        home,
        async (client) => {
          const args = {
            agent,
            prompt,
            // As venom-mux's new -c: a relative --cwd is taken from here, and without one the agent starts here when
            // this directory is inside the workspace. A host's job starts in that host's workspace.
            ...(typeof values.host === "string"
              ? { host: values.host }
              : startIn(values.cwd as string | undefined, client.hello.workspace)),
            ...(values.background ? { background: true } : {}),
            ...(values.worktree ? { worktree: true } : {}),
            ...(typeof values.branch === "string" ? { branch: values.branch } : {}),
          };
          const result = await client.callTool("agent", args, timeout ? { timeoutSeconds: timeout } : {});
          if (json) io.out(JSON.stringify(result));
          else {
            // The tail is the agent's own output: untrusted, so escaped before it reaches the terminal.
            if (result.content) io.out(terminalSafe(result.content).replace(/\n$/, ""));
            if (result.status !== "ok") io.err(`${app.program}: ${result.status}: ${result.error?.message ?? ""}`);
          }
          return result.status === "ok" ? Exit.ok : Exit.failed;
        },
        options,
      );
    },
  };
}

/**
 * The progress line for an event/agent notification; anything else prints
 * nothing. The daemon built the event from proto's schema: the CLI checks only
 * what it prints, each field escaped, so that `run` starts without loading zod
 * (docs/benchmarks.md, the cli step).
 */
function progressLine(program: string, method: string, params: unknown): string | undefined {
  if (method !== "event/agent") return undefined;
  const { name, state, detail } = (params ?? {}) as Record<string, unknown>;
  if (typeof name !== "string" || typeof state !== "string") return undefined;
  const line = (text: string) => terminalSafe(text, { singleLine: true });
  return `${program}: ${line(name)} ${line(state)}${typeof detail === "string" && detail ? ` ${line(detail)}` : ""}`;
}
