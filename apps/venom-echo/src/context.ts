import type { ApprovalGate } from "@venom/proto";
import type { Config, DelegationOwner, LauncherTable, SessionState, VenomHome, WorkspaceFs } from "@venom/runtime";

/** What venom-echo's tools see of a session. */
export interface EchoContext {
  workspace: WorkspaceFs;
  config: Config;
  session: SessionState;
  /** Where processes the session starts are recorded, and by whom. */
  home: VenomHome;
  owner: DelegationOwner;
  /** Where the approvals of the processes the session starts go: to `gate`, the session's own (docs/security-model.md, the relay). */
  launchers: LauncherTable;
  gate: ApprovalGate;
}
