import { ErrorCode, ProtocolError } from "@venom/proto";
import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/**
 * Bytes for a pipe pane's stdin. Only the connection that created the pane
 * may write them: its stdio is that connection's protocol stream (an ACP
 * session), which nobody else, the owner included, may inject into.
 */
export const stdinMethod = (panes: PaneTable) =>
  paneMethod("pane/stdin", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    if (!pane.pipe) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `invalid params: target: pane ${pane.id} is a terminal pane; type into it with pane/send`,
        {
          path: ["target"],
        },
      );
    }
    if (!session.context.pipes.has(pane)) {
      throw new ProtocolError(
        ErrorCode.OwnerRequired,
        `refused: the stdin of pipe pane ${pane.id} belongs to the connection that created it`,
        { path: ["target"] },
      );
    }
    return { bytes: pane.pipe.stdin(Buffer.from(params.data, "base64"), params.end === true) };
  });
