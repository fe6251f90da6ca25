import { createConnection } from "node:net";
import { type CliApp, NotRunning, VenomClient, type VenomHome } from "@venom/runtime/cli";

/**
 * The attached client's own connection to the daemon. It is opened here rather
 * than with connectCli so the client learns at once when the daemon goes away
 * (the socket closes), and it declares no approval gate: the terminal is in raw
 * mode, and pane methods never ask.
 */
export async function connectAttached(
  app: CliApp,
  home: VenomHome,
  handlers: { onEvent(method: string, params: unknown): void; onClose(): void },
): Promise<VenomClient> {
  const path = home.socket(app.app);
  const socket = createConnection(path);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED") throw new NotRunning(app.program, path);
    throw error;
  }
  socket.on("error", () => undefined);
  const client = await VenomClient.over(socket, socket, {
    client: { name: app.program, version: app.version },
    onEvent: handlers.onEvent,
  });
  socket.once("close", handlers.onClose);
  return client;
}
