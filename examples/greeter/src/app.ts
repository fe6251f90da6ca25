import { defineTool } from "@venom/proto";
import { type Config, Daemon, type DaemonOptions, loadUserConfig } from "@venom/runtime";
import type { DaemonModule } from "@venom/runtime/cli";
import * as z from "zod";
import { greeterSection } from "./config.js";

interface GreeterContext {
  config: Config;
}

/** Its one tool: the configured greeting, then the name. */
const greetTool = defineTool<{ name: string }, GreeterContext>({
  name: "greet",
  description: "Greet someone by name, with the greeting of config.toml's [greeter] section.",
  input: z.strictObject({ name: z.string().min(1).max(64) }),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: (input) => `greet ${JSON.stringify(input.name)}`,
  run: async (input, call) => ({ content: `${greeterSection.read(call.context.config).greeting}, ${input.name}` }),
});

export function createGreeterDaemon(options: DaemonOptions): Daemon<GreeterContext> {
  return new Daemon(
    {
      app: "greeter",
      server: { name: "venom-greeter", version: "0.1.0" },
      tools: [greetTool],
      createContext: (state) => ({ config: state.config }),
    },
    options,
  );
}

/** What `serve` loads. */
export const daemonModule: DaemonModule = { createDaemon: createGreeterDaemon, loadUserConfig, configSections: [greeterSection] };
