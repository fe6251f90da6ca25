import { defineTool, type WriteDataSchema, WriteInputSchema } from "@venom/proto";
import type { z } from "zod";
import type { EchoContext } from "../context.js";

type WriteInput = z.infer<typeof WriteInputSchema>;

/**
 * Write a file inside the session workspace, atomically (temp file, fsync,
 * renameat), bounded by tools.max_write_bytes. Asks for approval under on-risk.
 */
export const writeTool = defineTool<WriteInput, EchoContext>({
  name: "write",
  description:
    "Create or replace a file inside the session workspace, atomically (relative path; parents are created; bounded by tools.max_write_bytes). Give expectedSha256 to replace only the content you last read.",
  input: WriteInputSchema,
  capabilities: ["fs.write"],
  effect: "mutating",
  replay: "unsafe",
  replayOf: (input) => (input.expectedSha256 ? "idempotent" : "unsafe"),
  summarize: (input) =>
    `write ${input.path} (${Buffer.byteLength(input.content, input.encoding === "base64" ? "base64" : "utf8")} bytes${input.expectedSha256 ? `, replacing sha256 ${input.expectedSha256.slice(0, 12)}…` : ""})`,
  run: async (input, call) => {
    const content = Buffer.from(input.content, input.encoding === "base64" ? "base64" : "utf8");
    const result = call.context.workspace.writeFile(input.path, content, {
      expectedSha256: input.expectedSha256,
      maxBytes: call.context.config.tools.max_write_bytes,
      // read returns a file's sha256 only when it returned all of it: no larger file has a hash to expect.
      maxHashBytes: call.context.config.tools.max_read_bytes,
    });
    return {
      content: `${result.created ? "created" : "replaced"} ${input.path} (${result.bytes} bytes)${result.durable ? "" : "; committed but not confirmed durable (fsync failed)"}`,
      data: { ...result, path: input.path } satisfies z.input<typeof WriteDataSchema>,
    };
  },
});
