import type { VenomClient } from "@venom/runtime";
import { cleanupAll, connect, type StartOptions, startMux, type TestDaemon } from "@venom/testkit";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { TMUX_MISSING, type Tmux } from "./tmux.js";

/** A daemon, and a client of it for setting up and checking panes. */
export interface Mux extends TestDaemon {
  client: VenomClient;
}

/** What a test file's tests start (daemons with a client, tmux servers), ended after each test. */
export function endedAfterEach(): { mux(options?: StartOptions): Promise<Mux>; tmux(tmux: Tmux): Tmux } {
  const started: { daemons: TestDaemon[]; tmuxes: Tmux[]; clients: VenomClient[] } = { daemons: [], tmuxes: [], clients: [] };
  afterEach(async () => {
    for (const tmux of started.tmuxes.splice(0)) tmux.kill();
    for (const client of started.clients.splice(0)) client.close();
    for (const daemon of started.daemons.splice(0)) await daemon.stop();
  });
  afterAll(cleanupAll);
  return {
    async mux(options = {}) {
      const d = await startMux(options);
      started.daemons.push(d);
      const client = await connect(d);
      started.clients.push(client);
      return Object.assign(d, { client });
    },
    tmux(tmux) {
      started.tmuxes.push(tmux);
      return tmux;
    },
  };
}

/** One daemon for every test of a file: started before the first, stopped after the last; call the result for it. */
export function daemonForFile(options: StartOptions = {}): () => TestDaemon {
  let daemon: TestDaemon | undefined;
  beforeAll(async () => {
    daemon = await startMux(options);
  });
  afterAll(async () => {
    await daemon?.stop();
    await cleanupAll();
  });
  return () => {
    if (!daemon) throw new Error("the file's daemon has not started");
    return daemon;
  };
}

/** In a describe whose tests need tmux: each fails, saying what to install, where tmux is absent (a skip would hide them). */
export function needsTmux(): void {
  beforeEach(() => {
    if (TMUX_MISSING) throw new Error(TMUX_MISSING);
  });
}
