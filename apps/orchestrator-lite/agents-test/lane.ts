// The agent lane's user: real agent CLIs installed from npm (testkit/npm-cache.ts) on the user's PATH, venom-orch
// configured and signed in with its own commands, a scripted model provider on loopback as the agent's endpoint, and
// `venom-orch run` typed into a terminal (tmux) where the person answers y or n. Canaries sit in the caller's and
// the daemons' environments, so a test can prove none reached the agent or the endpoint.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ORCH_BIN, tempDir } from "@venom/testkit";
import { type ModelProvider, startModelProvider } from "@venom/testkit/model-provider";
import { expect } from "vitest";
import type { JobRecord } from "../src/jobs.js";
import { type Stack, startStack } from "../test/stack.js";

export const KEY = "sk-lane-key-5e1f";
/** Stands for the model provider's URL in a lane's config.toml. */
export const ENDPOINT = "@ENDPOINT@";
/** Pinned: what this lane proves is these versions. */
export const CLAUDE = "@anthropic-ai/claude-code@2.1.332";
export const CLAUDE_ACP = "@zed-industries/claude-agent-acp@0.23.1";
/**
 * Claude Code's `[agents.claude.env]`: the endpoint, and no traffic but the model's. As root, Claude Code refuses its
 * bypass mode unless told it runs in a sandbox (IS_SANDBOX=1): docs/venom-orch.md, "Using real agents".
 */
export const CLAUDE_ENV = `ANTHROPIC_BASE_URL = "${ENDPOINT}"\nCLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1"\nIS_SANDBOX = "1"\n`;
export const CODEX = "@openai/codex@0.171.0";
export const CODEX_ACP = "@zed-industries/codex-acp@0.16.0";
const CANARIES = { caller: "caller-canary-8d2b", daemon: "daemon-canary-71ac", daemonKey: "daemon-key-canary-3c90" };

export interface Lane {
  stack: Stack;
  provider: ModelProvider;
  /** venom-orch's CLI as the user runs it, `input` on its stdin. */
  orch(args: string[], input?: string): { code: number | null; stdout: string; stderr: string };
  /** `venom-orch jobs --json`, by label. */
  jobs(): Record<string, JobRecord>;
  /** Another scripted model provider, closed with the lane: for a second agent whose tools are named otherwise. */
  anotherProvider(): Promise<ModelProvider>;
  /** `venom-orch run AGENT PROMPT [flags]` on a terminal; `answers` typed in order, each at its own y/N question. */
  run(agent: string, prompt: string, options?: { flags?: string[]; answers?: ("y" | "n")[] }): Promise<string>;
  /** What the agent left in its private state directory (`$VENOM_HOME/agents/NAME/state`), relative paths. */
  privateFiles(agent: string): string[];
  /** Everything the user's real home holds (the empty ~/.local/bin the stack makes aside). */
  homeListing(): string[];
  /** Fails when a canary of the caller's or the daemons' environment is in `text`. */
  expectNoCanary(text: string): void;
  /**
   * What every run keeps: the environment its command recorded in agent-env.txt has `stateVar` in the agent's
   * private home and no canary; the key reached the endpoint as the `keyHeader` [name, value] and no canary did; the
   * real home holds nothing; the private state holds `files` the agent made there.
   */
  expectKeptPrivate(agent: string, expected: { stateVar: string; keyHeader: [string, string]; files: string[] }): void;
  close(): Promise<void>;
}

/**
 * A user with `executables` (name → the installed file) in a directory on PATH, `config` in config.toml (ENDPOINT in it is
 * the model provider's URL), and a model provider with nothing scripted yet.
 */
export async function startLane(
  executables: Record<string, string>,
  config: string,
  {
    nodeFirst,
    confined,
  }: {
    /** A Node's bin directory put first on the daemons' PATH: the agents' `node`. */
    nodeFirst?: string;
    /**
     * The agents run confined: their packages' directories go on PATH too, as a confined process reads and runs
     * only the system, Node's and PATH's directories and the workspace (`npm install -g` puts them under /usr).
     */
    confined?: boolean;
  } = {},
): Promise<Lane> {
  const provider = await startModelProvider();
  // Installed as `npm install -g` would: a directory on the user's PATH (an ACP adapter finds its CLI there).
  const bin = tempDir("agents-bin");
  for (const [name, file] of Object.entries(executables)) symlinkSync(file, join(bin, name));
  const packages = confined ? Object.values(executables).map((file) => dirname(dirname(file))) : [];
  const stack = await startStack({
    config: config.replaceAll(ENDPOINT, provider.url),
    env: {
      LANE_CANARY: CANARIES.daemon,
      ANTHROPIC_API_KEY: CANARIES.daemonKey,
      OPENAI_API_KEY: CANARIES.daemonKey,
      PATH: [...(nodeFirst ? [nodeFirst] : []), bin, ...packages, process.env.PATH].join(":"),
    },
  });
  const userEnv = {
    ...process.env,
    PATH: stack.orch.env.PATH,
    VENOM_HOME: stack.home,
    HOME: stack.userHome,
    CALLER_CANARY_TOKEN: CANARIES.caller,
  };
  const session = `venom-lane-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) => spawnSync("tmux", ["-L", session, ...args], { encoding: "utf8" });
  const others: ModelProvider[] = [];
  const lane: Lane = {
    stack,
    provider,
    jobs() {
      const { jobs } = JSON.parse(lane.orch(["jobs", "--json"]).stdout) as { jobs: JobRecord[] };
      return Object.fromEntries(jobs.map((job) => [job.name, job]));
    },
    async anotherProvider() {
      const other = await startModelProvider();
      others.push(other);
      return other;
    },
    orch(args, input = "") {
      const result = spawnSync(process.execPath, [ORCH_BIN, ...args], {
        env: userEnv,
        cwd: stack.workspace,
        input,
        encoding: "utf8",
        timeout: 60_000,
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    async run(agent, prompt, { flags = [], answers = [] } = {}) {
      const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
      const command = [process.execPath, ORCH_BIN, "run", agent, prompt, ...flags].map(quote).join(" ");
      const env = Object.entries(userEnv).flatMap(([name, value]) => (value === undefined ? [] : ["-e", `${name}=${value}`]));
      tmux(
        "new-session",
        "-d",
        "-x",
        "200",
        "-y",
        "50",
        ...env,
        "sh",
        "-c",
        `cd ${quote(stack.workspace)} && ${command}; echo RUN-EXIT=$?; sleep 600`,
      );
      const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "0").stdout;
      const asked = () => screen().match(/\[y\/N\]/g)?.length ?? 0;
      const ended = () => /RUN-EXIT=\d+/.test(screen());
      /** Waits until `done`, or the run ended or asked what nobody will answer; says what the terminal showed. */
      const until = async (done: () => boolean, what: string) => {
        await expect.poll(() => done() || ended() || asked() > answers.length, { timeout: 180_000, interval: 200 }).toBe(true);
        if (!done()) throw new Error(`${what}, but the terminal showed:\n${screen()}`);
      };
      try {
        for (const [i, answer] of answers.entries()) {
          await until(() => asked() === i + 1 && !ended(), `expected question ${i + 1} to answer ${answer}`);
          tmux("send-keys", "-t", "0", answer, "Enter");
        }
        await until(() => ended() && asked() === answers.length, `expected the run to end after ${answers.length} question(s)`);
        return screen();
      } finally {
        tmux("kill-server");
      }
    },
    privateFiles: (agent) => readdirSync(join(stack.home, "agents", agent, "state"), { recursive: true, encoding: "utf8" }).sort(),
    homeListing: () =>
      readdirSync(stack.userHome, { recursive: true, encoding: "utf8" })
        .filter((path) => path !== ".local" && path !== join(".local", "bin"))
        .sort(),
    expectNoCanary(text) {
      for (const canary of Object.values(CANARIES)) expect(text).not.toContain(canary);
    },
    expectKeptPrivate(agent, { stateVar, keyHeader: [header, value], files }) {
      const env = readFileSync(join(stack.workspace, "agent-env.txt"), "utf8");
      expect(env).toContain(`${stateVar}=${join(stack.home, "agents", agent, "state")}\n`);
      lane.expectNoCanary(env);
      expect(provider.requests.some((request) => request.headers[header] === value)).toBe(true);
      lane.expectNoCanary(sentToModel(provider));
      expect(lane.homeListing()).toEqual([]);
      expect(lane.privateFiles(agent)).toEqual(expect.arrayContaining(files));
    },
    close: async () => {
      await Promise.all([provider, ...others].map((model) => model.close()));
    },
  };
  return lane;
}

/** What the model endpoint was sent, headers and bodies, as one text. */
function sentToModel(provider: ModelProvider): string {
  return provider.requests.map((request) => `${request.path}\n${JSON.stringify(request.headers)}\n${request.body}`).join("\n");
}

/** A file of the workspace, or "" when the agent never wrote it. */
export function workspaceFile(lane: Lane, name: string): string {
  try {
    return readFileSync(join(lane.stack.workspace, name), "utf8");
  } catch {
    return "";
  }
}

/**
 * Codex reads no endpoint variable: its own configuration in the private CODEX_HOME names the endpoint (`url`, the
 * lane's provider by default), as docs/venom-orch.md ("Using real agents") tells a user to write it; the key is the
 * one its own login stored.
 */
export function pointCodexAt(lane: Lane, url = lane.provider.url): void {
  const state = join(lane.stack.home, "agents", "codex", "state");
  mkdirSync(state, { recursive: true });
  writeFileSync(
    join(state, "config.toml"),
    `model = "gpt-5.1-codex"\nmodel_provider = "endpoint"\n\n[model_providers.endpoint]\nname = "endpoint"\nbase_url = "${url}/v1"\nwire_api = "responses"\nrequires_openai_auth = true\n`,
  );
  expect(lane.orch(["agents", "login", "codex", "--api-key"], `${KEY}\n`).code).toBe(0);
}
