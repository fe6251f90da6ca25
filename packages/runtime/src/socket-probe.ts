import { createConnection } from "node:net";

/** Does something answer on this socket path? Used to tell a live daemon from a stale socket file. */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
