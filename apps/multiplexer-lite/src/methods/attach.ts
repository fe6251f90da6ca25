import { randomUUID } from "node:crypto";
import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const attachSpec = PaneMethods["pane/attach"];
const detachSpec = PaneMethods["pane/detach"];

/**
 * Attach this connection to a pane: the answer carries the current screen,
 * then `pane/output` notifications stream live output. A connection that
 * stops reading is dropped to a `pane/redraw` when it catches up.
 */
export function attachMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: attachSpec.params,
    management: attachSpec.management,
    handle: async (raw, session) => {
      const params = raw as z.infer<typeof attachSpec.params>;
      const pane = panes.resolve(params.target);
      if (params.cols && params.rows) pane.resize(params.cols, params.rows);
      const attachment = randomUUID();
      const { rpc } = session;
      // Known to the session before the await: if the connection closes meanwhile, disposal still detaches it.
      session.context.attachments.set(attachment, pane);
      const screen = await pane.attach({
        id: attachment,
        backlog: () => rpc.backlog,
        output: (data) => rpc.notify("pane/output", { attachment, data }),
        redraw: (screen) => rpc.notify("pane/redraw", { attachment, screen }),
        exited: (info) => rpc.notify("pane/exited", { attachment, pane: info }),
        onDrain: (callback) => rpc.onDrain(callback),
      });
      if (rpc.closed) pane.detach(attachment);
      return { attachment, pane: pane.info(), screen };
    },
  };
}

export function detachMethod(): AppMethod<MuxContext> {
  return {
    params: detachSpec.params,
    management: detachSpec.management,
    handle: async (raw, session) => {
      const { attachment } = raw as z.infer<typeof detachSpec.params>;
      const pane = session.context.attachments.get(attachment);
      session.context.attachments.delete(attachment);
      return { detached: pane?.detach(attachment) ?? false };
    },
  };
}
