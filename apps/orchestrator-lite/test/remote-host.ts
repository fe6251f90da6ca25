import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli, MUX_BIN, ORCH_BIN, startEcho, type TestDaemon, tempDir } from "@venom/testkit";
import { expect } from "vitest";
import { DEMO_AGENT, type Stack } from "./stack.js";

/**
 * Another host, on this machine: a VENOM_HOME of its own with its venom-echo running and the demo agent configured,
 * and the argv that runs its bridge (`venom-mux dial-stdio --start`, which starts its venom-mux), as `[hosts.NAME]
 * command` names one.
 */
export interface RemoteHost {
  home: string;
  workspace: string;
  echo: TestDaemon;
  /** The bridge's argv there: env sets its VENOM_HOME and HOME, as a login there would have them. */
  command: string[];
  /** What each run of the demo agent there handed over. */
  runs(): { argv: string[]; cwd: string; env: Record<string, string> }[];
}

export async function remoteHost(): Promise<RemoteHost> {
  const home = tempDir("remote-home");
  const workspace = tempDir("remote-ws");
  const userHome = tempDir("remote-user");
  const config = `[agents.demo]\nexecutable = "${DEMO_AGENT}"\n`;
  const echo = await startEcho({ home, workspace, config, env: { HOME: userHome } });
  const command = [
    "env",
    `VENOM_HOME=${home}`,
    `HOME=${userHome}`,
    process.execPath,
    MUX_BIN,
    "dial-stdio",
    "--start",
    "--workspace",
    workspace,
  ];
  const runs = () => {
    const dir = join(home, "agents", "demo", "runs");
    try {
      return readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")));
    } catch {
      return [];
    }
  };
  return { home, workspace, echo, command, runs };
}

/** `[hosts.NAME] command = [...]`, for the local user config. */
export const hostConfig = (name: string, command: readonly string[]) => `[hosts.${name}]\ncommand = ${JSON.stringify(command)}\n`;

export const orchCli = (stack: Stack, args: string[]) => cli({ env: stack.orch.env, bin: ORCH_BIN }, args);

export interface Job {
  id: string;
  name: string;
  state: string;
  host: string | null;
  pid: number | null;
  note: string | null;
}

/** The local venom-orch's jobs, as `venom-orch jobs --json` prints them. */
export function jobs(stack: Stack): Job[] {
  const listed = orchCli(stack, ["jobs", "--json"]);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { jobs: Job[] }).jobs;
}

export async function jobInState(stack: Stack, name: string, state: RegExp): Promise<Job> {
  await expect.poll(() => jobs(stack).find((j) => j.name === name)?.state, { timeout: 30_000 }).toMatch(state);
  return jobs(stack).find((j) => j.name === name) as Job;
}
