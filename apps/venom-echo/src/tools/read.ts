import { defineTool, type ReadDataSchema, ReadInputSchema, sha256Hex } from "@venom/proto";
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
  summarize: (input) => `read ${input.path}`,
  risk: (input) => (isSecretLikePath(input.path) ? "secret-read" : "read"),
  run: async (input, call) => {
    const path = checkRelativePath(input.path);
    const file = call.context.workspace.readFile(path, call.context.config.tools.max_read_bytes);
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
