import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/send"];

/** Type into a pane; `enter` adds the Enter key (a carriage return, as a terminal sends it). */
export function sendMethod(panes: PaneTable): AppMethod<MuxContext> {
  return {
    params: spec.params,
    management: spec.management,
    handle: async (raw) => {
      const params = raw as z.infer<typeof spec.params>;
      const data = params.enter ? `${params.data}\r` : params.data;
      panes.resolve(params.target).write(data);
      return { bytes: Buffer.byteLength(data) };
    },
  };
}
