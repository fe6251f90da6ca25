import type { CliApp, VenomHome } from "@venom/runtime/cli";
import { connectCli, type VenomClient } from "@venom/runtime/cli";

/** Run `fn` with a client of this home's venom-mux, closing it after. */
export async function withMux<T>(app: CliApp, home: VenomHome, fn: (client: VenomClient) => Promise<T>): Promise<T> {
  const client = await connectCli(app, home);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
