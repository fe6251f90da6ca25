import { type CliApp, connectCli, type VenomClient, type VenomHome } from "@venom/runtime/cli";

/** Run `fn` with a client of this home's venom-orch (approvals asked on the terminal), closing it after. */
export async function withOrch<T>(
  app: CliApp,
  home: VenomHome,
  fn: (client: VenomClient) => Promise<T>,
  options: Parameters<typeof connectCli>[2] = {},
): Promise<T> {
  const client = await connectCli(app, home, options);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
