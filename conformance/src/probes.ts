/**
 * How the suite asks the tools venom/1 daemons offer (echo, read, write, run)
 * for something whose effect it can observe from outside the daemon.
 */
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ToolDescriptor, ToolResult } from "@venom/proto";
import type { CheckContext } from "./context.js";

export const nonce = () => randomBytes(8).toString("hex");

/** One shell word, whatever the path holds. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Arguments for `run` in the shape its snapshot advertises: a shell `command`, else an `argv`. */
export function runArguments(tool: ToolDescriptor, script: string, cwd?: string): Record<string, unknown> {
  const command = accepts(tool, "command") ? { command: script } : { argv: ["/bin/sh", "-c", script] };
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
