import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk";
import type { Risk } from "@venom/proto";
import { isSecretLikePath } from "@venom/runtime";

// An ACP agent's `session/request_permission` decided like Venom's own tools
// (docs/venom-orch.md, "ACP agents"): the risk comes from the tool call's
// kind, and an answer only ever allows this one call.

/** Where the job's reads are judged from: its workspace, and its cwd (what a relative location is relative to). */
export interface ReadScope {
  workspace: string;
  cwd: string;
}

/**
 * The risk of a tool call of `kind`: reads are read-only when every path they
 * name stays in the workspace and is not secret-like, edits are file-system
 * writes, commands are processes, fetches are network, thinking is harmless;
 * anything else (other, switch_mode, no kind at all) asks, whatever the policy
 * would run unasked.
 */
export function riskOf(kind: ToolKind | null, toolCall: ToolCallUpdate, scope: ReadScope): Risk {
  switch (kind) {
    case "read":
    case "search":
      return readsSecret(pathsOf(toolCall), scope) ? "secret-read" : "read";
    case "think":
      return "read";
    case "edit":
    case "delete":
    case "move":
      return "write";
    case "execute":
      return "process";
    case "fetch":
      return "network";
    default:
      // Unknown effect: the broadest risk an agent's own tool can have, so it is always asked.
      return "process";
  }
}

/** The paths a tool call names: its locations, and path-like fields of its raw input. */
function pathsOf(toolCall: ToolCallUpdate): string[] {
  const paths = (toolCall.locations ?? []).map((l) => l.path);
  const input = toolCall.rawInput;
  if (input && typeof input === "object") {
    for (const [key, value] of Object.entries(input)) if (/path|file|dir/i.test(key) && typeof value === "string") paths.push(value);
  }
  return paths;
}

/** Paths of one request judged, at most: a request naming more is asked whole (each judgement costs a realpath per component). */
const PATHS_LIMIT = 64;
/** Longer than any path the kernel takes (PATH_MAX): not a file the agent can read, so asked. */
const PATH_LIMIT = 4096;

/**
 * A read asks, like venom-echo's read (which refuses what is outside its
 * workspace: docs/venom-orch.md, "ACP agents"), when any path it names is
 * secret-like by name, leads outside the workspace, or into /proc, /sys or a
 * dot-directory of a home (~/.claude, ~/.config, ~/.ssh), wherever the
 * workspace is. A path that cannot be told is outside.
 */
function readsSecret(paths: readonly string[], scope: ReadScope): boolean {
  if (paths.length > PATHS_LIMIT) return true;
  const workspace = realOrSelf(scope.workspace);
  return paths.some((path) => {
    const real = followed(path, scope.cwd);
    if (real === null) return true;
    const inside = real === workspace || real.startsWith(`${workspace}/`);
    // The path as written too: /proc/PID/cwd leads wherever that process is, the workspace included.
    return !inside || [path, resolve(scope.cwd, path), real].some((p) => isSecretLikePath(p) || isPrivate(p));
  });
}

/** /proc and /sys (another process's environment, memory, cwd), and any dot-directory of a home. */
function isPrivate(path: string): boolean {
  return /^\/(proc|sys)(\/|$)/.test(path) || /^\/(home\/[^/]+|root)\/\./.test(path) || path.startsWith(`${homedir()}/.`);
}

/**
 * Where `path` (relative to `cwd`) leads: each component that exists resolved
 * by the kernel (realpath, so symlinks are followed as an open would), the rest
 * appended. Null when it cannot be told: a `..` after a component that does not
 * exist (what it climbs out of is unknown), a `~` (the agent's shell expands it),
 * a NUL, or a path longer than the kernel takes.
 */
function followed(path: string, cwd: string): string | null {
  if (path.startsWith("~") || path.includes("\0") || path.length > PATH_LIMIT) return null;
  let at = "/";
  let missing = false;
  for (const part of (isAbsolute(path) ? path : `${cwd}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (missing) return null;
      at = dirname(at);
      continue;
    }
    at = join(at, part);
    if (!missing) {
      try {
        at = realpathSync(at);
      } catch {
        missing = true;
      }
    }
  }
  return at;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export type Answer = "approve" | "deny" | "cancelled";

/**
 * The response to a permission request. Approve selects an `allow_once`
 * option, never `allow_always` (that would stop the agent asking, and so
 * bypass every later decision); deny selects `reject_once`. Without the option
 * the answer needs, the request is answered `cancelled` and `cancelTurn` says
 * the turn must end (session/cancel).
 */
export function respond(
  answer: Answer,
  options: readonly PermissionOption[],
): { response: RequestPermissionResponse; cancelTurn: boolean } {
  const wanted = answer === "approve" ? "allow_once" : answer === "deny" ? "reject_once" : null;
  const option = wanted ? options.find((o) => o.kind === wanted) : undefined;
  if (option) return { response: { outcome: { outcome: "selected", optionId: option.optionId } }, cancelTurn: false };
  return { response: { outcome: { outcome: "cancelled" } }, cancelTurn: answer !== "cancelled" };
}
