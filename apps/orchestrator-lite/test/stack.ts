import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApprovalRequest } from "@venom/proto";
import { type ClientOptions, VenomClient } from "@venom/runtime";
import { ORCH_BIN, startEcho, startMux, startOrch, type TestDaemon, tempDir } from "@venom/testkit";
import { expect } from "vitest";

/** The shipped demo agent: records its argv, cwd and environment, then acts on its prompt. */
export const DEMO_AGENT = fileURLToPath(new URL("../agents/demo-agent.mjs", import.meta.url));
export const ACP_AGENT = fileURLToPath(new URL("../agents/acp-agent.mjs", import.meta.url));

export interface Stack {
  home: string;
  workspace: string;
  /** The user's real home: ~/.local/bin holds the fake agent CLIs. */
  userHome: string;
  echo: TestDaemon;
  mux: TestDaemon;
  orch: TestDaemon;
  /** What each launch of `agent` handed over, oldest first. */
  runs(agent: string): AgentRun[];
  /** What each run of the fake ACP agent replied, oldest first. */
  replies(agent: string): string[];
  /** A session of the person: their gate answers approvals and records what it was asked. */
  person(
    answer?: (request: ApprovalRequest) => "approve" | "deny" | Promise<"approve" | "deny">,
    options?: Partial<ClientOptions>,
  ): Promise<Person>;
}

export interface AgentRun {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface Person {
  client: VenomClient;
  asked: ApprovalRequest[];
}

export interface StackOptions {
  /** Extra user config after the demo agent's entry. */
  config?: string;
  env?: NodeJS.ProcessEnv;
  /** Names under ~/.local/bin that run the demo agent (fake claude, codex, …). */
  fakes?: string[];
  /** What the daemons are started through (testkit's WITHOUT_CAPABILITIES: as a user's programs run). */
  execThrough?: readonly string[];
}

/** The files an agent's runs left in its private home's runs/ ending in `suffix`, oldest first. */
function runFiles(home: string, agent: string, suffix: string): string[] {
  const dir = join(home, "agents", agent, "runs");
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(suffix))
      .map((name) => join(dir, name))
      .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  } catch {
    return [];
  }
}

/** echo, mux and orch in one temp VENOM_HOME on one workspace; `demo` is the demo agent. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const home = tempDir("home");
  const workspace = tempDir("ws");
  const userHome = tempDir("user");
  mkdirSync(join(userHome, ".local", "bin"), { recursive: true });
  for (const name of options.fakes ?? []) symlinkSync(DEMO_AGENT, join(userHome, ".local", "bin", name));
  const config = `[agents.demo]\nexecutable = "${DEMO_AGENT}"\n${options.config ?? ""}`;
  const common = { home, workspace, config, env: { HOME: userHome, ...options.env }, execThrough: options.execThrough };
  const [echo, mux] = await Promise.all([startEcho(common), startMux(common)]);
  const orch = await startOrch(common);
  return {
    home,
    workspace,
    userHome,
    echo,
    mux,
    orch,
    runs: (agent) =>
      runFiles(home, agent, ".json")
        .map((path) => JSON.parse(readFileSync(path, "utf8")) as AgentRun & { at?: number })
        .sort((a, b) => (a.at ?? 0) - (b.at ?? 0)),
    replies: (agent) => runFiles(home, agent, ".replies").map((path) => readFileSync(path, "utf8")),
    person: async (answer = () => "approve", extra = {}) => {
      const asked: ApprovalRequest[] = [];
      const client = await VenomClient.connect(orch.socket, {
        client: { name: "person", version: "0" },
        gate: async (request) => {
          asked.push(request);
          return answer(request);
        },
        ...extra,
      });
      return { client, asked };
    },
  };
}

/**
 * `venom-orch attach JOB` as a person runs it, in a real terminal (a tmux session of its own): the job's pane shows
 * `shows`, then C-b d detaches and attach ends.
 */
export async function attachSeesThenDetaches(stack: Stack, job: string, shows: RegExp): Promise<void> {
  const session = `orch-attach-${process.pid}-${job}`;
  const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });
  const env = Object.entries({ VENOM_HOME: stack.home, HOME: stack.userHome }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", ...env, process.execPath, ORCH_BIN, "attach", job);
  try {
    await expect.poll(() => tmux("capture-pane", "-p", "-t", session).stdout, { timeout: 20_000 }).toMatch(shows);
    tmux("send-keys", "-t", session, "C-b", "d");
    await expect.poll(() => tmux("has-session", "-t", session).status, { timeout: 20_000 }).not.toBe(0);
  } finally {
    tmux("kill-session", "-t", session);
  }
}
