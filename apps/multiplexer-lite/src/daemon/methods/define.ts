import { PaneMethods } from "@venom/proto";
import type { AppMethod, ConnectionSession } from "@venom/runtime";
import type { z } from "zod";
import type { MuxContext } from "../context.js";

type PaneMethodName = keyof typeof PaneMethods;
export type PaneParams<N extends PaneMethodName> = z.infer<(typeof PaneMethods)[N]["params"]>;

/** A pane method whose params schema and management flag come from proto, never restated here. */
export function paneMethod<N extends PaneMethodName>(
  name: N,
  handle: (params: PaneParams<N>, session: ConnectionSession<MuxContext>) => Promise<unknown>,
): AppMethod<MuxContext> {
  const spec = PaneMethods[name];
  // The connection validated the params against this same schema before calling.
  return { params: spec.params, management: spec.management, handle: (params, session) => handle(params as PaneParams<N>, session) };
}
