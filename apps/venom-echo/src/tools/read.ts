import { defineTool, type ReadDataSchema, ReadInputSchema, sha256Hex, ToolFailure } from "@venom/proto";
import { checkRelativePath, isSecretLikePath } from "@venom/runtime";
import type { z } from "zod";
import type { EchoContext } from "../context.js";

/**
 * Read a file inside the session workspace, bounded by tools.max_read_bytes.
 * Secret-like paths need approval (a heuristic, not a confidentiality boundary).
 */
export const readTool = defineTool<{ path: string }, EchoContext>({
  name: "read",
  description: "Read a UTF-8 file inside the session workspace (relative path; bounded by tools.max_read_bytes).",
  input: ReadInputSchema,
  capabilities: ["fs.read", "secret"],
  effect: "read-only",
  replay: "safe",
  summarize: (input, context) => {
    const target = context?.workspace.finalTarget(input.path);
    return `read ${input.path}${target ? ` (a symlink to ${target})` : ""}`;
  },
  // Judged by the name asked and by where symlinks lead: notes.txt -> .env asks like .env.
  risk: (input, context) =>
    isSecretLikePath(input.path) || isSecretLikePath(context?.workspace.finalTarget(input.path) ?? "") ? "secret-read" : "read",
  run: async (input, call) => {
    const path = checkRelativePath(input.path);
    const file = call.context.workspace.readFile(path, call.context.config.tools.max_read_bytes);
    // A symlink swapped to a secret after the decision: the file actually opened decides, and nothing is returned.
    if (call.risk !== "secret-read" && isSecretLikePath(file.target)) {
      throw new ToolFailure(`${path}: now leads to ${file.target}, a secret-like file, which needs approval; nothing was returned`);
    }
    const note = file.truncated ? `\n[read cut: ${file.size} bytes, first ${file.content.length} returned]` : "";
    return {
      content: file.content.toString("utf8") + note,
      data: {
        path,
        bytes: file.size,
        truncated: file.truncated,
        ...(file.truncated ? {} : { sha256: sha256Hex(file.content) }),
      } satisfies z.input<typeof ReadDataSchema>,
    };
  },
});
