import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NativeError, peerCredentials, peerPidfd, pidfdExited, socketFd } from "../src/index.js";
import { exited, killAndReap, makeTempDir, pidOfPidfd } from "./helpers.js";

// The client runs in a separate node process so its pid differs from ours. It
// connects, says hello, and exits when the server writes anything back.
const CLIENT = `
const socket = require("node:net").connect(process.env.SOCKET_PATH);
socket.on("connect", () => socket.write("hello"));
socket.on("data", () => process.exit(0));
`;

describe("peer credentials over a Unix socket", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let server: Server | undefined;
  let child: ChildProcess | undefined;
  const fds: number[] = [];

  afterEach(async () => {
    await killAndReap(child);
    for (const fd of fds.splice(0)) closeSync(fd);
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    temp?.remove();
    child = server = temp = undefined;
  });

  async function connectChild(): Promise<{ connection: Socket; client: ChildProcess }> {
    temp = makeTempDir("peer");
    const path = join(temp.dir, "server.sock");
    const srv = createServer();
    server = srv;
    const accepted = new Promise<Socket>((resolve) => srv.once("connection", resolve));
    await new Promise<void>((resolve) => srv.listen(path, resolve));
    const client = spawn(process.execPath, ["-e", CLIENT], {
      env: { ...process.env, SOCKET_PATH: path },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child = client;
    const connection = await accepted;
    // Wait for the hello so the connection is fully established on both ends.
    await new Promise((resolve) => connection.once("data", resolve));
    return { connection, client };
  }

  it("reports the connecting child's pid, uid and gid", async () => {
    const { connection, client } = await connectChild();
    const creds = peerCredentials(socketFd(connection));
    expect(client.pid).toBeTypeOf("number");
    expect(creds.pid).toBe(client.pid);
    expect(creds.pid).not.toBe(process.pid);
    expect(creds.uid).toBe(process.getuid?.());
    expect(creds.gid).toBe(process.getgid?.());
    connection.end("bye");
    expect(await exited(client)).toEqual({ code: 0, signal: null });
  });

  it("gives a pidfd for the peer that flips to exited when the child exits", async () => {
    const { connection, client } = await connectChild();
    const pidfd = peerPidfd(socketFd(connection));
    fds.push(pidfd);
    expect(pidfd).toBeGreaterThanOrEqual(0);
    expect(pidOfPidfd(pidfd)).toBe(client.pid);
    expect(pidfdExited(pidfd)).toBe(false);

    connection.end("bye");
    await exited(client);
    expect(pidfdExited(pidfd)).toBe(true);
  });

  it("fails with ENOTSOCK on a non-socket fd and EBADF on a bad fd", () => {
    const fd = openSync("/dev/null", "r");
    fds.push(fd);
    expect(() => peerCredentials(fd)).toThrow(expect.objectContaining({ code: "ENOTSOCK", syscall: "getsockopt(SO_PEERCRED)" }));
    expect(() => peerPidfd(fd)).toThrow(NativeError);
    expect(() => peerCredentials(-1)).toThrow(expect.objectContaining({ code: "EBADF" }));
  });

  it("socketFd refuses a socket that has no fd", () => {
    expect(() => socketFd(new Socket())).toThrow(/no file descriptor/);
  });
});
