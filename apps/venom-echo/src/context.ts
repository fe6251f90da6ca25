import type { Config, WorkspaceFs } from "@venom/runtime";

/** What venom-echo's tools see of a session. */
export interface EchoContext {
  workspace: WorkspaceFs;
  config: Config;
}
