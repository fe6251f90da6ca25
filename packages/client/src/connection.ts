import type { ApprovalRequest } from "@venom/proto";
import { VenomClient, VenomHome } from "@venom/runtime/cli";

/** An answer to an approval the daemon asks this client. */
export type Decision = "approve" | "deny";

export interface ConnectOptions {
  /** The home whose daemon to reach: default $VENOM_HOME, else ~/.venom. */
  home?: string;
  /**
   * Asked for every approval the daemon puts to this client (a write, a pane, an agent's question relayed up its
   * chain). Without it each is denied, as on a CLI without a terminal.
   */
  approve?: (request: ApprovalRequest) => Decision | Promise<Decision>;
  /** Declares that this client approves all it is asked (the CLI's `--yes`); the daemon still reports each one. */
  autoApprove?: boolean;
  /** How this client is named in the daemon's log; default "venom-client". */
  name?: string;
}

type Listener = (method: string, params: unknown) => void;

/**
 * One connection to one daemon of a home, with the checks every Venom client makes: the socket's owner is this
 * uid (SO_PEERCRED) before a byte is sent, every reply is checked against proto's schemas, and this process's
 * delegation markers are declared in hello, so a delegate is treated as one.
 */
export class Connection {
  readonly #listeners: Set<Listener>;

  private constructor(
    readonly client: VenomClient,
    listeners: Set<Listener>,
  ) {
    this.#listeners = listeners;
  }

  static async open(app: "echo" | "mux" | "orch", options: ConnectOptions): Promise<Connection> {
    const home = options.home === undefined ? VenomHome.fromEnv() : new VenomHome(options.home);
    const listeners = new Set<Listener>();
    const { approve } = options;
    const client = await VenomClient.connect(home.socket(app), {
      client: { name: options.name ?? "venom-client", version: "1" },
      ...(approve ? { gate: async (request: ApprovalRequest) => approve(request) } : {}),
      ...(options.autoApprove ? { autoApprove: true } : {}),
      onEvent: (method, params) => {
        for (const listener of listeners) listener(method, params);
      },
    });
    return new Connection(client, listeners);
  }

  /** Calls `listener` with each notification of `method` until the returned function is called. */
  on(method: string, listener: (params: unknown) => void): () => void {
    const filtered: Listener = (m, params) => {
      if (m === method) listener(params);
    };
    this.#listeners.add(filtered);
    return () => this.#listeners.delete(filtered);
  }

  close(): void {
    this.client.close();
  }
}
