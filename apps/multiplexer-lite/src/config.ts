import { agentsSection } from "@venom/agents/config";
import { configSection } from "@venom/runtime/config";
import * as z from "zod";
import { muxApp } from "./cli-app.js";
import { bindingProblem } from "./commands/bindings.js";
import { muxCommands } from "./commands/table.js";

/**
 * `[mux.bindings]`: KEY = "COMMAND LINE" rebinds a key of the prefix table (commands/bindings.ts), "" unbinds it. A key
 * that is not one key, or a line the `:` prompt would refuse, is an error naming the key, when the file is loaded.
 */
const BindingsSchema = z.record(z.string(), z.string()).superRefine((bindings, ctx) => {
  const commands = muxCommands(muxApp);
  for (const [key, line] of Object.entries(bindings)) {
    const problem = bindingProblem(muxApp, commands, key, line);
    if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
  }
});

/** `[mux]` in config.toml (docs/venom-mux.md): venom-mux's own section, under its name. */
export const muxSection = configSection(
  "mux",
  z
    .strictObject({
      prefix: z.string().default("C-b"),
      scrollback_lines: z.number().int().positive().max(1_000_000).default(10_000),
      max_panes: z.number().int().positive().max(4096).default(256),
      /** Let a pane's OSC 52 clipboard writes through to an attached terminal (tmux's set-clipboard); off: dropped. */
      allow_clipboard: z.boolean().default(false),
      /** Budget for every pane's screen and scrollback together, estimated at 12 bytes a cell plus 600 a line (what an xterm model measures). */
      max_screen_memory_mb: z
        .number()
        .int()
        .positive()
        .max(1024 * 1024)
        .default(3072),
      /** The first pane index (tmux's base-index): a new pane takes the lowest free index from here. */
      base_index: z.number().int().min(0).max(1_000_000).default(0),
      /** The status line at the bottom of an attached client (tmux's status option). */
      status: z.boolean().default(true),
      bindings: BindingsSchema.default({}),
    })
    .prefault({}),
);
export type MuxConfig = z.infer<typeof muxSection.schema>;

/** What venom-mux validates of config.toml beside the runtime's sections: its own, and the agents its panes run. */
export const muxSections = [muxSection, agentsSection];
