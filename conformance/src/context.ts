import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import {
  type HelloParamsSchema,
  HelloResultSchema,
  MARKER_DEPTH,
  MARKER_PARENT,
  PROTOCOL,
  SnapshotSchema,
  type ToolDescriptor,
  type ToolResult,
  ToolResultSchema,
} from "@venom/proto";
import type { z } from "zod";
import { type Secrets, Transcript } from "./transcript.js";
import { expect, expectResult } from "./verdict.js";
import { VERSION } from "./version.js";
import { type Answer, WireClient } from "./wire-client.js";

/** How long a daemon may take to close a connection it must close: far more than a correct one needs. */
export const CLOSE_WAIT_MS = 10_000;

export type HelloResult = z.infer<typeof HelloResultSchema>;
export type HelloParams = z.input<typeof HelloParamsSchema>;

/** The daemon under test, however it was found or started. */
export interface Target {
  socket: string;
  workspace: string;
  /** Its VENOM_HOME, for file modes and log scanning. */
  home?: string;
  /** How to start its stdio endpoint: one session over stdin/stdout. */
  stdio?: { command: string; args: readonly string[]; env?: NodeJS.ProcessEnv };
  /**
   * How to start another instance of the daemon in the foreground, on the
   * VENOM_HOME given in its environment: the hostile-home check starts it on
   * homes it must refuse. Its socket is then where target.socket lies
   * relative to target.home.
   */
  serve?: { command: string; args: readonly string[]; env?: NodeJS.ProcessEnv };
  /** The daemon's HOME, when the suite chose it: where a confined process must not read. */
  userHome?: string;
  /** A value planted in the daemon's environment that must never come back. */
  canary?: string;
  /** What the daemon printed outside the protocol, when the suite started it. */
  diagnostics?(): string;
}

/** What every check of one run shares. */
export interface RunState {
  readonly target: Target;
  readonly secrets: Secrets;
  /** Canonical path of the daemon's workspace. */
  readonly workspace: string;
  /** A fresh directory inside the workspace for this run's files; removed after the run. */
  readonly scratch: string;
  /** A fresh directory outside the workspace: what no path may reach. Removed after the run. */
  readonly outside: string;
  /** The owner's hello at the start of the run: it says which tools the daemon offers. */
  readonly hello: HelloResult;
  /** Reads in the symlink race. */
  readonly raceRounds: number;
}

export interface Session {
  client: WireClient;
  hello: HelloResult;
}

export interface SessionOptions {
  label?: string;
  hello?: Partial<HelloParams>;
  /** How the session's gate answers approval requests. */
  approve?: Answer;
}

/**
 * A child that connects to the daemon's socket and pipes its stdin and stdout
 * through, so the daemon's peer is that child: its uid, its environment. It
 * reports "connected" or the connect error on stderr, then exits when the
 * connection closes.
 */
export const RELAY = [
  `const s = require("node:net").createConnection(process.argv[1]);`,
  `s.on("connect", () => { process.stderr.write("connected\\n"); process.stdin.pipe(s); });`,
  `s.on("error", (e) => process.stderr.write("error " + e.code + "\\n"));`,
  `s.pipe(process.stdout);`,
  `s.on("close", () => process.exit(0));`,
].join(" ");

export interface Relay {
  client: WireClient;
  /** "connected", "error CODE", or "exited" if the child ended first. */
  connected: Promise<string>;
}

/** One check's view of the run: sessions, children and files it creates are its own and cleaned up after it. */
export class CheckContext {
  readonly transcript: Transcript;
  /** SHOULD-level findings: the check warns instead of passing. */
  readonly findings: string[] = [];
  /** What the check saw outside the wire (a file, a process, an environment), shown with its result. */
  readonly evidence: string[] = [];
  readonly #clients: WireClient[] = [];
  readonly #children: ChildProcess[] = [];
  static #dirs = 0;

  constructor(readonly run: RunState) {
    this.transcript = new Transcript(run.secrets);
  }

  get target(): Target {
    return this.run.target;
  }

  /** The descriptor of a tool the daemon offers the owner, if it does. */
  tool(name: string): ToolDescriptor | undefined {
    return this.run.hello.snapshot.tools.find((tool) => tool.name === name);
  }

  /** A new directory inside the run's scratch directory. */
  dir(name: string): string {
    const path = join(this.run.scratch, `${name}-${++CheckContext.#dirs}`);
    mkdirSync(path, { recursive: true });
    return path;
  }

  /** A path inside the workspace as a tool names it: relative to the workspace. */
  rel(path: string): string {
    return relative(this.run.workspace, path);
  }

  /** Keep what was seen (bounded): a reader of a failure sees it beside the transcript. */
  see(what: string, text: string): void {
    this.evidence.push(`${what}: ${text.length > 600 ? `${text.slice(0, 600)}… (${text.length} chars)` : text}`);
  }

  should(condition: boolean, finding: string): void {
    if (!condition) this.findings.push(finding);
  }

  /** A raw connection to the daemon's socket; nothing is sent. */
  async connect(label = "client", approve?: Answer): Promise<WireClient> {
    const client = await WireClient.connect(this.target.socket, { label, log: this.transcript, ...(approve ? { approve } : {}) });
    this.#clients.push(client);
    return client;
  }

  /** A connection that has said hello; its gate approves unless told otherwise. */
  async session(options: SessionOptions = {}): Promise<Session> {
    const client = await this.connect(options.label ?? "owner", options.approve ?? "approve");
    return { client, hello: await this.hello(client, options.hello) };
  }

  hello(client: WireClient, overrides: Partial<HelloParams> = {}): Promise<HelloResult> {
    return greet(client, overrides);
  }

  /** tools/call that must produce a tool result (a protocol error fails the check). */
  async callTool(
    client: WireClient,
    name: string,
    args: Record<string, unknown>,
    options: { timeoutSeconds?: number; callId?: string; waitMs?: number } = {},
  ): Promise<ToolResult> {
    const { waitMs, ...rest } = options;
    const reply = await client.request("tools/call", { name, arguments: args, ...rest }, waitMs);
    return expectResult(reply, ToolResultSchema, `tools/call ${name}`);
  }

  /** The daemon still serves a new connection: hello and tools/list answer. */
  async assertServing(): Promise<void> {
    const { client } = await this.session({ label: "bystander" });
    expectResult(await client.request("tools/list"), SnapshotSchema, "tools/list on a new connection");
    client.close();
  }

  /**
   * Send what a daemon must refuse and stop listening to (the design's error
   * table), then judge: no result, the one error reply it owes (a SHOULD: it
   * may be unable to send it), and the connection closed.
   */
  async expectFailClosed(client: WireClient, message: string | Buffer | object, code: number, what: string): Promise<string> {
    const before = client.replies.length;
    await (typeof message === "string" || Buffer.isBuffer(message) ? client.write(message) : client.send(message));
    const closed = await client.waitClosed(CLOSE_WAIT_MS);
    const replies = client.replies.slice(before);
    expect(!replies.some((reply) => reply.error === undefined), `${what}: the daemon answered with a result instead of refusing`);
    const error = replies.find((reply) => reply.error)?.error;
    if (error) expect(error.code === code, `${what}: answered error ${error.code} (${error.message}), expected ${code}`);
    else this.should(false, `${what}: the connection closed without the error reply (${code}) the daemon owes when it can send one`);
    expect(closed, `${what}: the connection was still open ${CLOSE_WAIT_MS / 1000}s later`);
    return `${what}: ${error ? `error ${error.code}` : "no error reply"}, connection closed`;
  }

  /** Connect through a child process, as `nobody` or with extra environment (delegation markers). */
  relay(options: { label: string; env?: Record<string, string>; asNobody?: boolean }): Relay {
    const node = [process.execPath, "-e", RELAY, this.target.socket];
    const [command, ...args] = options.asNobody ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", ...node] : node;
    const env = options.asNobody ? { PATH: process.env.PATH ?? "/usr/bin:/bin" } : { ...ownEnv(), ...options.env };
    const child = this.#spawn(command as string, args, env, options.label);
    const connected = new Promise<string>((resolve) => {
      let err = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        const line = err.split("\n")[0];
        if (err.includes("\n") && line) resolve(line);
      });
      child.once("exit", () => resolve(err.trim() || "exited"));
    });
    const client = WireClient.over(child.stdout!, child.stdin!, { label: options.label, log: this.transcript });
    this.#clients.push(client);
    return { client, connected };
  }

  /** A session over the daemon's stdio endpoint; a check fails when the run was not told how to start it. */
  stdio(label = "stdio"): WireClient {
    const stdio = this.target.stdio;
    if (!stdio) throw new Error("no stdio endpoint to test: pass --stdio-command with the command that serves venom/1 on stdin/stdout");
    const child = this.#spawn(stdio.command, stdio.args, stdio.env ?? ownEnv(), label);
    child.stderr?.on("data", (chunk: Buffer) => this.run.secrets.scan(`${label} stderr`, chunk.toString()));
    const client = WireClient.over(child.stdout!, child.stdin!, { label, log: this.transcript });
    this.#clients.push(client);
    return client;
  }

  #spawn(command: string, args: readonly string[], env: NodeJS.ProcessEnv, label: string): ChildProcess {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    child.on("error", (error) => this.transcript.note(`${label}: cannot start ${command}: ${error.message}`));
    this.#children.push(child);
    return child;
  }

  /** Close every connection and end every child this check started. */
  dispose(): void {
    for (const client of this.#clients) client.close();
    for (const child of this.#children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/** Say hello as the suite: a client with a gate, unless `overrides` say otherwise. */
export async function greet(client: WireClient, overrides: Partial<HelloParams> = {}): Promise<HelloResult> {
  const params = { protocol: PROTOCOL, client: { name: "venom-conformance", version: VERSION }, approvals: true, ...overrides };
  return expectResult(await client.request("hello", params), HelloResultSchema, "hello");
}

/** Our environment without delegation markers: a child we start is the owner unless a check says otherwise. */
export function ownEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env[MARKER_PARENT];
  delete env[MARKER_DEPTH];
  return env;
}
