import type { SessionState } from "@venom/runtime";
import type { Launcher, Orchestrator } from "./orchestrator.js";

/** What venom-orch's tools see of a session. */
export interface OrchContext {
  state: SessionState;
  /** This session as the launcher of jobs: its depth, its gate, where its progress lines go. */
  launcher: Launcher;
  orchestrator: Orchestrator;
}
