import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ownEnv, type Target } from "./context.js";

/** A daemon the suite started for the run, and stops after it. */
export interface StartedTarget extends Target {
  stop(): Promise<void>;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The variable the canary is planted in: named like a credential, so any key filter would treat it as one. */
export const CANARY_VARIABLE = "VENOM_CONFORMANCE_CANARY_API_KEY";
const MAX_PRINTED = 4 * 1024 * 1024;

/** Our own daemons the suite can start: their folder and socket name. */
const TARGETS: Record<string, { folder: string; app: string }> = {
  echo: { folder: "venom-echo", app: "echo" },
  mux: { folder: "multiplexer-lite", app: "mux" },
  orch: { folder: "orchestrator-lite", app: "orch" },
};

/**
 * A file of one of our apps, found by where it sits beside this suite (conformance/ and apps/ side by side, in the
 * repository and in the installed package alike), not resolved as a package: the suite runs their programs as a
 * user would, and never loads their code.
 */
function ours(folder: string, file: string): string {
  return fileURLToPath(new URL(`../../apps/${folder}/${file}`, import.meta.url));
}

/** The probe agent the orch checks launch (`[agents.probe]`); see conformance/probe/agent.mjs. */
export const PROBE_AGENT = fileURLToPath(new URL("../probe/agent.mjs", import.meta.url));

/** The ACP agent the orch/acp-* checks launch (`[agents.acp-probe]`): the fake ACP agent venom-orch ships. */
function acpProbe(): string {
  return ours("orchestrator-lite", "agents/acp-agent.mjs");
}

/** What `--confined` adds to the started daemon's config: every process it starts confined, with no network. */
const CONFINED_CONFIG = '[sandbox]\nmode = "landlock"\nnetwork = "none"\n';

/**
 * Start one of our own daemons in a temporary VENOM_HOME and workspace, with a
 * canary in its environment and a temporary HOME of its own (the user's home
 * the confinement checks plant files in); `confined`: with [sandbox] on.
 */
export async function startTarget(name: string, options: { confined?: boolean } = {}): Promise<StartedTarget> {
  const target = TARGETS[name];
  if (!target) throw new UsageError(`--target must be echo, mux or orch (got ${JSON.stringify(name)})`);
  const main = ours(target.folder, "dist/main.cjs");
  const home = mkdtempSync(join(tmpdir(), "venom-conformance-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "venom-conformance-workspace-"));
  const userHome = mkdtempSync(join(tmpdir(), "venom-conformance-user-"));
  const canary = `venom-canary-${randomBytes(16).toString("hex")}`;
  const env = { ...ownEnv(), HOME: userHome, VENOM_HOME: home, [CANARY_VARIABLE]: canary };
  // venom-orch launches the probe agent; it starts venom-mux in the same home on the first launch.
  const orchAgents =
    `[agents.probe]\nexecutable = ${JSON.stringify(PROBE_AGENT)}\n` +
    `[agents.acp-probe]\nexecutable = ${JSON.stringify(acpProbe())}\nacp = true\n`;
  const config = [...(name === "orch" ? [orchAgents] : []), ...(options.confined ? [CONFINED_CONFIG] : [])];
  if (config.length > 0) writeFileSync(join(home, "config.toml"), config.join(""), { mode: 0o600 });
  const child = spawn(process.execPath, [main, "serve", "--workspace", workspace], { env, stdio: ["ignore", "pipe", "pipe"] });
  let printed = "";
  const keep = (chunk: Buffer) => {
    if (printed.length < MAX_PRINTED) printed += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    await end(child);
    if (name === "orch") await stopMux(env);
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
    rmSync(userHome, { recursive: true, force: true });
  };
  const socket = join(home, "state", `${target.app}.sock`);
  if (!(await listening(socket, child))) {
    await stop();
    throw new Error(`venom-${target.app} did not start within 15s${printed ? `: ${printed.trim().slice(0, 2000)}` : ""}`);
  }
  return {
    socket,
    workspace,
    home,
    userHome,
    canary,
    stdio: { command: process.execPath, args: [main, "serve", "--stdio", "--workspace", workspace], env },
    serve: { command: process.execPath, args: [main, "serve", "--workspace", workspace], env },
    diagnostics: () => printed,
    stop,
  };
}

/** Wait until the socket accepts a connection, while the daemon is alive. */
async function listening(socket: string, child: ChildProcess): Promise<boolean> {
  for (
    const deadline = Date.now() + 15_000;
    Date.now() < deadline && child.exitCode === null;
    await new Promise((r) => setTimeout(r, 50))
  ) {
    const accepted = await new Promise<boolean>((resolve) => {
      const probe = createConnection(socket, () => {
        probe.destroy();
        resolve(true);
      });
      probe.on("error", () => resolve(false));
    });
    if (accepted) return true;
  }
  return false;
}

/** The venom-mux venom-orch started for its panes: stopped with its own CLI, as a user would. */
async function stopMux(env: NodeJS.ProcessEnv): Promise<void> {
  const main = ours("multiplexer-lite", "dist/main.cjs");
  await new Promise((resolve) => spawn(process.execPath, [main, "stop"], { env, stdio: "ignore" }).once("exit", resolve));
}

/** SIGTERM, then SIGKILL if it has not exited within 5s. */
async function end(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
