import { PaneMethods } from "@venom/proto";
import type { AppMethod } from "@venom/runtime";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";

const spec = PaneMethods["pane/list"];

export function listMethod(panes: PaneTable): AppMethod<MuxContext> {
  return { params: spec.params, management: spec.management, handle: async () => ({ panes: panes.list().map((p) => p.info()) }) };
}
