import type { CliApp, CommandRun, ConnectOptions, VenomClient } from "@venom/runtime/cli";

/** Run `fn` with this command line's client of its home's venom-mux (one connection for a whole `A \; B` sequence). */
export async function withMux<T>(
  app: CliApp,
  { home, connections }: Pick<CommandRun, "home" | "connections">,
  fn: (client: VenomClient) => Promise<T>,
  options: Pick<ConnectOptions, "startWith"> = {},
): Promise<T> {
  return fn(await connections.client(app, home, options));
}
