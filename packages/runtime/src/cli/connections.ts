import type { VenomClient } from "../client.js";
import type { VenomHome } from "../home.js";
import type { CliApp } from "./app.js";
import { type ConnectOptions, connectCli } from "./commands/connect.js";

/**
 * The connections of one command line: the commands of a sequence
 * (`new … \; wait … \; capture …`) share one connection to a daemon, so a
 * sequence pays for one connect and one hello, not one per command.
 */
export class CliConnections {
  readonly #open = new Map<string, Promise<VenomClient>>();

  /** A client of `app`'s daemon in `home`: the one this command line already opened while it is open, else a new one. */
  async client(app: CliApp, home: VenomHome, options: Pick<ConnectOptions, "startWith"> = {}): Promise<VenomClient> {
    const socket = home.socket(app.app);
    // A daemon stopped by an earlier command of the sequence closed that connection: connect again (or say it is not running).
    const open = await this.#open.get(socket)?.catch(() => undefined);
    if (open && !open.rpc.closed) return open;
    const client = connectCli(app, home, options);
    this.#open.set(socket, client);
    return client;
  }

  close(): void {
    for (const client of this.#open.values())
      client.then(
        (c) => c.close(),
        () => undefined,
      );
    this.#open.clear();
  }
}
