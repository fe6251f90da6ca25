import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { PROTOCOL } from "@venom/proto";
import { answers, type ClientOptions, servingPid, VenomClient } from "@venom/runtime";
import { alive } from "./proc.js";

/** The built binaries, run the way a user runs them. */
export const ECHO_BIN = fileURLToPath(new URL("../apps/venom-echo/dist/main.cjs", import.meta.url));
export const MUX_BIN = fileURLToPath(new URL("../apps/multiplexer-lite/dist/main.cjs", import.meta.url));
export const ORCH_BIN = fileURLToPath(new URL("../apps/orchestrator-lite/dist/main.cjs", import.meta.url));

export interface TestDaemon {
  bin: string;
  home: string;
  workspace: string;
  socket: string;
  proc: ChildProcess;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

const cleanups: (() => void)[] = [];
const dirs: string[] = [];
/** How long a daemon left running gets to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Ends what a test file started: first every daemon still serving on a socket
 * in one of its temp dirs, then the daemons startDaemon started, then the
 * dirs. A daemon that `start` or `restart` detached, or that venom-orch
 * started for its panes, is no child of the test's: one that failed before
 * its own `stop` would leave it running after the tests (.ci/run fails then).
 */
export async function cleanupAll(): Promise<void> {
  await Promise.all(dirs.splice(0).flatMap((dir) => sockets(join(dir, "state")).map(stopServing)));
  for (const fn of cleanups.splice(0)) fn();
}

/** Every app's socket in a state directory (none if there is none): the apps are whichever a test started. */
function sockets(state: string): string[] {
  try {
    return readdirSync(state)
      .filter((name) => name.endsWith(".sock"))
      .map((name) => join(state, name));
  } catch {
    return [];
  }
}

/** The daemon serving on `socket`, if any: SIGTERM, then SIGKILL if it has not stopped within STOP_GRACE_MS. */
async function stopServing(socket: string): Promise<void> {
  const pid = existsSync(socket) ? await servingPid(socket) : null;
  if (pid === null) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Stopped meanwhile.
    }
  };
  signal("SIGTERM");
  for (const deadline = Date.now() + STOP_GRACE_MS; alive(pid) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) signal("SIGKILL");
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `venom-${prefix}-`));
  dirs.push(dir);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  args?: string[];
  files?: Record<string, string>;
  config?: string;
  /** Reuse a home (e.g. to restart after a crash). */
  home?: string;
  workspace?: string;
  /** A command line the daemon is started through, which execs it (the daemon keeps its pid): LEAKED_FD, WITHOUT_CAPABILITIES. */
  execThrough?: readonly string[];
}

/**
 * Starts the daemon holding an fd 99 that is not close-on-exec, as a shell or
 * launcher that leaked one would. Node marks the fds 0-15 it inherits
 * close-on-exec at its start (libuv's uv_disable_stdio_inheritance), and
 * those above up to the first gap: not fd 99.
 */
export const LEAKED_FD = ["/bin/bash", "-c", 'exec "$@" 99</dev/null', "bash"] as const;

/**
 * Starts the daemon (or any program) without capabilities, as a user's
 * programs run: root's would pass every check a same-user process meets.
 */
export const WITHOUT_CAPABILITIES =
  process.getuid?.() === 0
    ? (["setpriv", "--bounding-set", "-all", "--inh-caps", "-all", "--ambient-caps", "-all", "--"] as const)
    : ([] as const);

/** Start a real venom-echo daemon in a temp VENOM_HOME on a temp workspace. */
export function startEcho(options: StartOptions = {}): Promise<TestDaemon> {
  return startDaemon(ECHO_BIN, "echo", options);
}

/** Start a real venom-mux daemon in a temp VENOM_HOME on a temp workspace. */
export function startMux(options: StartOptions = {}): Promise<TestDaemon> {
  return startDaemon(MUX_BIN, "mux", options);
}

/** Start a real venom-orch daemon in a temp VENOM_HOME on a temp workspace. */
export function startOrch(options: StartOptions = {}): Promise<TestDaemon> {
  return startDaemon(ORCH_BIN, "orch", options);
}

/** Start the daemon of `bin` with `serve`, and wait until its socket answers. */
export async function startDaemon(bin: string, app: string, options: StartOptions = {}): Promise<TestDaemon> {
  const home = options.home ?? tempDir("home");
  const workspace = options.workspace ?? tempDir("ws");
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(workspace, name), content);
  if (options.config !== undefined) writeFileSync(join(home, "config.toml"), options.config);
  // A home of its own: the machine's login profile (pyenv, say) must not slow or wedge the `bash -lc` a run starts.
  const env = { ...process.env, HOME: tempDir("user"), ...options.env, VENOM_HOME: home };
  const [file, ...args] = [
    ...(options.execThrough ?? []),
    process.execPath,
    bin,
    "serve",
    "--workspace",
    workspace,
    ...(options.args ?? []),
  ];
  const proc = spawn(file as string, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  // Registered before the wait: a daemon too slow to answer (a loaded machine) must not outlive the tests either.
  cleanups.push(() => proc.exitCode === null && proc.kill("SIGKILL"));
  let stderr = "";
  proc.stderr?.on("data", (d) => {
    stderr += d;
  });
  const socket = join(home, "state", `${app}.sock`);
  const deadline = Date.now() + 20_000;
  while (!(await answers(socket))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${app} daemon did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGTERM");
      await new Promise((r) => proc.once("exit", r));
    }
  };
  return { bin, home, workspace, socket, proc, env, stop };
}

export function connect(daemon: TestDaemon, options: Partial<ClientOptions> = {}): Promise<VenomClient> {
  return VenomClient.connect(daemon.socket, { client: { name: "test", version: "0" }, ...options });
}

/** Run the daemon's CLI as a user would (venom-echo unless the daemon says otherwise); returns exit code and output. */
export function cli(daemon: { env: NodeJS.ProcessEnv; bin?: string; cwd?: string }, args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [daemon.bin ?? ECHO_BIN, ...args], {
    env: { ...daemon.env, ...env },
    ...(daemon.cwd ? { cwd: daemon.cwd } : {}),
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A raw line client that can send what a correct client never would. */
export class RawClient {
  readonly lines: unknown[] = [];
  closed = false;
  #waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket) {
    let buffer = "";
    // A socket read can end inside a multi-byte character: the decoder keeps the partial bytes for the next read.
    const decoder = new StringDecoder("utf8");
    socket.on("data", (d: Buffer) => {
      buffer += decoder.write(d);
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        this.lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      this.#wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.#wake();
    });
    socket.on("error", () => undefined);
  }

  static open(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once("connect", () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  request(id: number, method: string, params?: unknown): void {
    this.send(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  }

  hello(id = 1, extra: Record<string, unknown> = {}): void {
    this.request(id, "hello", { protocol: PROTOCOL, client: { name: "raw", version: "0" }, ...extra });
  }

  /** Wait until `n` lines arrived or the connection closed. */
  async next(n = this.lines.length + 1, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < n && !this.closed) {
      if (Date.now() > deadline) throw new Error("timed out waiting for a line");
      await new Promise<void>((r) => {
        this.#waiters.push(r);
        setTimeout(r, 100);
      });
    }
    return this.lines[n - 1];
  }

  async waitClosed(timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * What bash's TAB offers after `line` (words split on spaces; a trailing space means a new, empty word) with the
 * program's own `completion bash` script sourced, the program on PATH as a user has it.
 */
export function bashComplete(daemon: { env: NodeJS.ProcessEnv; bin?: string }, program: string, line: string): string[] {
  const bin = tempDir("bin");
  writeFileSync(join(bin, program), `#!/bin/sh\nexec "${process.execPath}" "${daemon.bin ?? ECHO_BIN}" "$@"\n`, { mode: 0o755 });
  const words = line.split(" ");
  const script = [
    `source <(${program} completion bash)`,
    `COMP_WORDS=(${words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    `_${program.replace(/-/g, "_")}_complete`,
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join("\n");
  // No startup file of the machine's runs: bash sources ~/.bashrc when its stdin is a socket (Node's pipes are) and
  // SHLVL is unset (as under turbo), and BASH_ENV always; this machine's (pyenv's rehash) hung the completion.
  const result = spawnSync("bash", ["--norc", "--noprofile", "-c", script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...daemon.env, BASH_ENV: undefined, PATH: `${bin}:${daemon.env.PATH ?? process.env.PATH}` },
    encoding: "utf8",
    timeout: 30_000,
  });
  if (result.status !== 0) throw new Error(`bash completion failed: ${result.stderr}`);
  return result.stdout.split("\n").filter(Boolean);
}
