import { lstatSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { cutMiddle, escapedNote, terminalSafe, terminalShown } from "@venom/proto";
import { isWithin } from "@venom/runtime";
import { type Adapter, whoDecides } from "./adapters.js";
import { WORKTREES_DIR } from "./worktree.js";

// What the person sees before a launch (docs/venom-orch.md, "Before launch"): the agent,
// where it runs, the prompt (bounded, with what was cut said), FULL PERMISSIONS
// when set, and the agent configuration near the cwd that can put credentials,
// endpoints, hooks or tools back after the environment was scrubbed.

/** Files and directories an agent CLI reads from its working directory or a parent. */
const AGENT_CONFIG = [".env", ".mcp.json", ".codex", ".gemini", "AGENTS.md", "CLAUDE.md"];
/** `.claude/settings*.json`. */
const CLAUDE_SETTINGS = /^settings.*\.json$/;

/** How much of a prompt the person sees: its head and tail, with the cut marked between them. */
const PROMPT_SHOWN = 260;

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

export interface LaunchFacts {
  adapter: Adapter;
  /** The cwd relative to the workspace ("." for the root). */
  where: string;
  prompt: string;
  background: boolean;
  found: string[];
  transport: "cli" | "acp";
  checkout?: CheckoutFacts;
  /** The host it runs on (docs/remote.md), and how it is reached (escaped, bounded). */
  host?: { name: string; via: string };
}

/** Where the job's files are: a worktree of its own, or a checkout another job already runs in. */
export interface CheckoutFacts {
  worktree?: { repo: string; base: string; branch: string | null };
  busyWith?: string;
}

const line = (text: string) => terminalSafe(text, { singleLine: true });

/** The approval summary of one launch: every part of it escaped, so `make test<600 spaces>; touch X` cannot hide its end. */
export function launchSummary(facts: LaunchFacts): string {
  const { adapter, where, prompt, background, found, transport } = facts;
  const full =
    transport === "acp"
      ? " with FULL PERMISSIONS (its own session mode that asks nothing: its permission requests are not relayed)"
      : " with FULL PERMISSIONS (its own approvals and sandbox are off)";
  // The prompt is what the agent reads: a person approving it is told when it carried characters they cannot see.
  const shownPrompt = terminalShown(prompt, { singleLine: true });
  const escaped = shownPrompt.escaped > 0 ? `, ${escapedNote(shownPrompt.escaped)}` : "";
  const { host } = facts;
  const lines = [
    `launch ${adapter.name}${transport === "acp" ? " over ACP" : ""}${host ? ` on host ${host.name}` : ""}${background ? " in the background" : ""} in ${line(where)}${adapter.permissions === "full" ? full : ""}`,
    `prompt (${[...prompt].length} characters${escaped}): ${cutMiddle(shownPrompt.text, PROMPT_SHOWN)}`,
    `it ${whoDecides(adapter, transport)}`,
  ];
  if (host) {
    lines.push(`host ${host.name} is reached through ${host.via}; its questions come labelled @${host.name}`);
  }
  const { worktree, busyWith } = facts.checkout ?? {};
  if (worktree) {
    lines.push(
      `in a new git worktree of ${line(worktree.repo)} from ${line(worktree.base)}: ${WORKTREES_DIR}/LABEL on branch ${line(worktree.branch ?? "venom/LABEL")} (LABEL: the job's, e.g. ${adapter.name}-1)`,
    );
  }
  if (busyWith) lines.push(`another job is running in this checkout (${line(busyWith)}): both may write the same files`);
  if (found.length > 0) {
    lines.push(`agent configuration here can bring back credentials, endpoints, hooks or tools: ${found.map(line).join(", ")}`);
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
