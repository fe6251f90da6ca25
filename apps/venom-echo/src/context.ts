import type { Config, DelegationOwner, SessionState, VenomHome, WorkspaceFs } from "@venom/runtime";

/** What venom-echo's tools see of a session. */
export interface EchoContext {
  workspace: WorkspaceFs;
  config: Config;
  session: SessionState;
  /** Where processes the session starts are recorded, and by whom. */
  home: VenomHome;
  owner: DelegationOwner;
}
