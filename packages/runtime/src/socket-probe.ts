import { createConnection } from "node:net";
import { peerCredentials, socketFd } from "@venom/native/peer";

/**
 * The pid of the process that serves this socket path (SO_PEERCRED, the
 * process that listens), or null when nothing answers on it.
 */
export function servingPid(path: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once("connect", () => {
      try {
        resolve(peerCredentials(socketFd(socket)).pid);
      } catch (error) {
        reject(error);
      } finally {
        socket.destroy();
      }
    });
    socket.once("error", () => resolve(null));
  });
}

/** Does something answer on this socket path? Used to tell a live daemon from a stale socket file. */
export async function answers(path: string): Promise<boolean> {
  return (await servingPid(path)) !== null;
}
