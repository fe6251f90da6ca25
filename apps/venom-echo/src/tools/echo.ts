import { bounded, defineTool, EchoInputSchema } from "@venom/proto";
import type { EchoContext } from "../context.js";

/** The smallest tool: returns its text. No capabilities, read-only, replay-safe. */
export const echoTool = defineTool<{ text: string }, EchoContext>({
  name: "echo",
  description: "Return the given text unchanged.",
  input: EchoInputSchema,
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: (input) => `echo ${JSON.stringify(bounded(input.text, 200))}`,
  run: async (input) => ({ content: input.text }),
});
