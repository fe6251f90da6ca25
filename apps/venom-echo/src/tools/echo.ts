import { bounded, defineTool } from "@venom/proto";
import { z } from "zod";
import type { EchoContext } from "../context.js";

/** The smallest tool: returns its text. No capabilities, read-only, replay-safe. */
export const echoTool = defineTool<{ text: string }, EchoContext>({
  name: "echo",
  description: "Return the given text unchanged.",
  input: z.strictObject({ text: z.string().max(64 * 1024) }),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: (input) => `echo ${JSON.stringify(bounded(input.text, 200))}`,
  run: async (input) => ({ content: input.text }),
});
