// @venom/client: the typed client for orchestrators (docs/client.md). One connection per daemon, the peer checks of
// every Venom client, approvals as a callback.
export type { ApprovalRequest, PaneInfo, ToolResult } from "@venom/proto";
export { Connection, type ConnectOptions, type Decision } from "./connection.js";
export { type Job, type JobProgress, Jobs, type RunOptions } from "./jobs.js";
export { type PaneWaitResult, paneExitCode, waitForPane } from "./pane-wait.js";
export { type NewPane, Panes, type WaitFor } from "./panes.js";
export { Tools } from "./tools.js";
