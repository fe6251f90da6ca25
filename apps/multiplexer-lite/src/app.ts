import { type AppDefinition, Daemon, type DaemonOptions, loadUserConfig } from "@venom/runtime";
import type { DaemonModule } from "@venom/runtime/cli";
import { VERSION } from "./common/version.js";
import { muxSections } from "./config.js";
import type { MuxContext } from "./daemon/context.js";
import { paneMethods } from "./daemon/methods/index.js";
import { PaneTable } from "./daemon/panes.js";

/** venom-mux: a pane server. It offers no tools; its methods are `pane/*`. */
export function createMuxDaemon(options: DaemonOptions): Daemon<MuxContext> {
  let panes: PaneTable | undefined;
  let daemon: Daemon<MuxContext> | undefined;
  const definition: AppDefinition<MuxContext> = {
    app: "mux",
    server: { name: "venom-mux", version: VERSION },
    outside: "a terminal outside venom-mux's delegated processes (outside the multiplexer's panes)",
    tools: [],
    methods: (daemon) => {
      panes = new PaneTable({
        home: options.home,
        config: options.config,
        instance: daemon.instance,
        owner: daemon.owner,
        logger: daemon.logger,
        launchers: daemon.launchers,
        paneEnded: () => daemon.checkIdle(),
      });
      return paneMethods(panes);
    },
    createContext: () => ({ attachments: new Map(), bound: new Set(), pipes: new Set() }),
    // A client that goes away is detached from every pane it watched; the panes run on, except those
    // bound to its connection: the kernel closes that the moment their owner dies (kill -9 included).
    disposeContext: (context) => {
      for (const [attachment, pane] of context.attachments) panes?.detach(pane, attachment);
      for (const pane of context.pipes) pane.pipe?.unbind();
      for (const pane of context.bound) {
        daemon?.logger.warn({ pane: pane.id }, "the connection that owned this pane closed; stopping it");
        void panes?.kill(pane);
      }
    },
    beforeStop: async () => panes?.closeAll(),
    // A running pane is work in progress: restart --when-idle waits for every pane to end.
    busy: () => panes?.running ?? false,
  };
  daemon = new Daemon(definition, options);
  return daemon;
}

/** What `serve` loads (scripts/bundle.mjs makes this module the daemon's bundle). */
export const daemonModule: DaemonModule = { createDaemon: createMuxDaemon, loadUserConfig, configSections: muxSections };
