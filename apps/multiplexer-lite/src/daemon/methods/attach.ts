import { randomUUID } from "node:crypto";
import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/**
 * Attach this connection to a pane: the answer carries the current screen,
 * then `pane/output` notifications stream live output. A connection that
 * stops reading is dropped to a `pane/redraw` when it catches up.
 */
export const attachMethod = (panes: PaneTable) =>
  paneMethod("pane/attach", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    if (params.cols && params.rows) panes.resize(pane, params.cols, params.rows);
    const attachment = randomUUID();
    const { rpc } = session;
    // Known to the session before the await: if the connection closes meanwhile, disposal still detaches it.
    session.context.attachments.set(attachment, pane);
    const screen = await pane.attach({
      id: attachment,
      ...(params.cols && params.rows ? { size: { cols: params.cols, rows: params.rows } } : {}),
      backlog: () => rpc.backlog,
      output: (data) => rpc.notify("pane/output", { attachment, data }),
      redraw: (screen) => rpc.notify("pane/redraw", { attachment, screen }),
      exited: (info) => rpc.notify("pane/exited", { attachment, pane: info }),
      onDrain: (callback) => rpc.onDrain(callback),
    });
    if (rpc.closed) panes.detach(pane, attachment);
    return { attachment, pane: pane.info(), screen };
  });

export const detachMethod = (panes: PaneTable) =>
  paneMethod("pane/detach", async ({ attachment }, session) => {
    const pane = session.context.attachments.get(attachment);
    session.context.attachments.delete(attachment);
    return { detached: pane ? panes.detach(pane, attachment) : false };
  });
