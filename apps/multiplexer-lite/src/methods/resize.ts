import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/resize"];

/** Resize a pane: the screen model and the pty (the program gets SIGWINCH). */
export function resizeMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const params = raw as z.infer<typeof spec.params>;
      const pane = panes.resolve(params.target);
      pane.resize(params.cols, params.rows);
      return pane.info();
    },
  };
}
