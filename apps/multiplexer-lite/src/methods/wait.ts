import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/wait"];

/** Wait until a pane's program exits (or the timeout passes); its status is kept after exit. */
export function waitMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const params = raw as z.infer<typeof spec.params>;
      const pane = panes.resolve(params.target);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        pane.exited().then(() => false),
        new Promise<boolean>((resolve) => {
          if (params.timeoutSeconds) timer = setTimeout(() => resolve(true), params.timeoutSeconds * 1000);
        }),
      ]);
      clearTimeout(timer);
      return { pane: pane.info(), timedOut };
    },
  };
}
