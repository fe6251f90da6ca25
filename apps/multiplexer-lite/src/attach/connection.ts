import { createConnection } from "node:net";
import { assertServerIsUs, type CliApp, NotRunning, VenomClient, type VenomHome } from "@venom/runtime/cli";

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
  via?: readonly string[],
): Promise<VenomClient> {
  if (via) return connectVia(app, via, handlers);
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
  try {
    // As every client: a socket another uid listens on never gets a byte, so never a keystroke (runtime's client.ts).
    assertServerIsUs(socket, path);
  } catch (error) {
    socket.destroy();
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

/**
 * The connection through a bridge: `via`'s stdin and stdout carry it to a daemon elsewhere (`ssh HOST venom-mux
 * dial-stdio`, docs/remote.md), whose end is the bridge's. It runs as the user's own command, with this terminal's
 * environment, as they would run ssh themselves; its stderr is this terminal's, so ssh's own words are seen.
 */
async function connectVia(
  app: CliApp,
  via: readonly string[],
  handlers: { onEvent(method: string, params: unknown): void; onClose(): void },
): Promise<VenomClient> {
  // Loaded here: child_process is not worth the start time of a local attach.
  const { spawn } = await import("node:child_process");
  const [file, ...args] = via;
  const child = spawn(file as string, args, { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.on("error", () => undefined);
  const failed = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("close", (code) => reject(new Error(`the bridge (${file}) ended (exit ${code}) before the daemon answered`)));
  });
  try {
    const client = await Promise.race([
      VenomClient.over(child.stdout, child.stdin, { client: { name: app.program, version: app.version }, onEvent: handlers.onEvent }),
      failed,
    ]);
    failed.catch(() => undefined);
    child.stdout.once("close", handlers.onClose);
    return client;
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
}
