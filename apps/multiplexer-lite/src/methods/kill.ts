import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/kill"];

/** End a pane's whole process group (TERM, KILL after 2 s, through pidfds) and remove it. */
export function killMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const pane = panes.resolve((raw as z.infer<typeof spec.params>).target);
      await panes.kill(pane);
      return { killed: true, pane: pane.info() };
    },
  };
}
