import { createConnection } from "node:net";
import { peerCredentials, socketFd } from "@venom/native/peer";

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

/** The pid of the process that serves this socket path (SO_PEERCRED), or null when nothing answers on it. */
export function servingPid(path: string): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once("connect", () => {
      let pid: number | null = null;
      try {
        pid = peerCredentials(socketFd(socket)).pid;
      } finally {
        socket.destroy();
        resolve(pid);
      }
    });
    socket.once("error", () => resolve(null));
  });
}
