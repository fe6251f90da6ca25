import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk";
import type { Risk } from "@venom/proto";
import { isSecretLikePath } from "@venom/runtime";

// An ACP agent's `session/request_permission` decided like Venom's own tools
// (docs/venom-orch.md, "ACP agents"): the risk comes from the tool call's
// kind, and an answer only ever allows this one call.

/**
 * The risk of a tool call of `kind`: reads are read-only unless they touch a
 * secret-like path, edits are file-system writes, commands are processes,
 * fetches are network, thinking is harmless; anything else (other,
 * switch_mode, no kind at all) asks, whatever the policy would run unasked.
 */
export function riskOf(kind: ToolKind | null, toolCall: ToolCallUpdate): Risk {
  switch (kind) {
    case "read":
    case "search":
      return pathsOf(toolCall).some(isSecretLikePath) ? "secret-read" : "read";
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
