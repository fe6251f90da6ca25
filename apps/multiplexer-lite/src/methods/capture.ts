import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/capture"];

/** tmux `capture-pane -p` over the pane's screen model. */
export function captureMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const params = raw as z.infer<typeof spec.params>;
      return { text: await panes.resolve(params.target).capture(params) };
    },
  };
}
