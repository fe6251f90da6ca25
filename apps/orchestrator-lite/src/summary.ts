import { lstatSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isWithin } from "@venom/runtime";
import type { Adapter } from "./adapters.js";

// What the person sees before a launch (issue #8, "Before launch"): the agent,
// where it runs, the prompt (bounded, with what was cut said), FULL PERMISSIONS
// when set, and the agent configuration near the cwd that can put credentials,
// endpoints, hooks or tools back after the environment was scrubbed.

/** Files and directories an agent CLI reads from its working directory or a parent. */
const AGENT_CONFIG = [".env", ".mcp.json", ".codex", ".gemini", "AGENTS.md", "CLAUDE.md"];
/** `.claude/settings*.json`. */
const CLAUDE_SETTINGS = /^settings.*\.json$/;

const PROMPT_HEAD = 200;
const PROMPT_TAIL = 60;

/** Agent configuration in `cwd` and each parent up to the workspace root, relative to the workspace. */
export function agentConfigFound(cwd: string, workspace: string): string[] {
  const found: string[] = [];
  for (let dir = cwd; isWithin(workspace, dir); dir = dirname(dir)) {
    for (const name of AGENT_CONFIG) if (exists(join(dir, name))) found.push(join(relative(workspace, dir), name));
    for (const name of listDir(join(dir, ".claude"))) {
      if (CLAUDE_SETTINGS.test(name)) found.push(join(relative(workspace, dir), ".claude", name));
    }
    if (dir === workspace) break;
  }
  return found;
}

/**
 * Text an agent, a prompt or a repository controls, made safe for a terminal:
 * C0 and C1 controls, DEL and bidirectional overrides become visible \uXXXX
 * escapes. With "lines", newlines and tabs stay (multi-line output).
 */
export function escapeText(text: string, keep: "lines" | "nothing" = "nothing"): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    out += isUnsafe(code, keep === "lines") ? `\\u${code.toString(16).padStart(4, "0")}` : char;
  }
  return out;
}

function isUnsafe(code: number, keepLines: boolean): boolean {
  if (keepLines && (code === 0x0a || code === 0x09)) return false;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Head and tail of a long text with the cut marked, so the end of `make test<600 spaces>; touch X` stays visible. */
export function headAndTail(text: string, head = PROMPT_HEAD, tail = PROMPT_TAIL): string {
  const chars = [...text];
  if (chars.length <= head + tail) return text;
  const cut = chars.length - head - tail;
  return `${chars.slice(0, head).join("")} [… ${cut} characters cut …] ${chars.slice(-tail).join("")}`;
}

export interface LaunchFacts {
  adapter: Adapter;
  /** The cwd relative to the workspace ("." for the root). */
  where: string;
  prompt: string;
  background: boolean;
  found: string[];
}

/** The approval summary of one launch: every part of it escaped. */
export function launchSummary(facts: LaunchFacts): string {
  const { adapter, where, prompt, background, found } = facts;
  const lines = [
    `launch ${adapter.name}${background ? " in the background" : ""} in ${escapeText(where)}${adapter.permissions === "full" ? " with FULL PERMISSIONS (its own approvals and sandbox are off)" : ""}`,
    `prompt (${[...prompt].length} characters): ${escapeText(headAndTail(prompt))}`,
  ];
  if (found.length > 0) {
    lines.push(
      `agent configuration here can bring back credentials, endpoints, hooks or tools: ${found.map((f) => escapeText(f)).join(", ")}`,
    );
  }
  return lines.join("\n");
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
