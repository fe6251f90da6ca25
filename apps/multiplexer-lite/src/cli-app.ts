import type { CliApp } from "@venom/runtime/cli";
import { VERSION } from "./common/version.js";

/** venom-mux as its CLI and its configuration name it: the program, the app's name, and what loads on demand. */
export const muxApp: CliApp = {
  program: "venom-mux",
  app: "mux",
  version: VERSION,
  loadDaemon: async () => (await import("./app.js")).daemonModule,
  configSections: async () => (await import("./config.js")).muxSections,
};
