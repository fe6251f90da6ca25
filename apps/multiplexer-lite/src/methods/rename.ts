import { ErrorCode, PaneMethods, ProtocolError } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/rename"];

export function renameMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const params = raw as z.infer<typeof spec.params>;
      const pane = panes.resolve(params.target);
      if (panes.list().some((p) => p !== pane && p.name === params.name)) {
        throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: name: a pane named "${params.name}" exists`, { path: ["name"] });
      }
      pane.name = params.name;
      return pane.info();
    },
  };
}
