import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { NativeError, peerCredAddon, peerCredentials, peerPidfd, pidfdExited, socketFd } from "../src/index.js";
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

  // SO_PEERCRED is answered by the addon the build compiled, or by koffi where it could not be built: both are checked.
  const ANSWERERS = [
    ["the built addon", peerCredAddon()],
    ["koffi", null],
  ] as const;

  it("the addon the build compiled (addon/peercred.c) answers peerCredentials", () => {
    const built = fileURLToPath(new URL("../dist/peercred.node", import.meta.url));
    expect(readFileSync(built).subarray(0, 4)).toEqual(Buffer.from("\x7fELF", "latin1"));
    expect(peerCredAddon()).not.toBeNull();
    expect(readFileSync("/proc/self/maps", "utf8")).toContain(built);
  });

  it.each(ANSWERERS)("%s reports the connecting child's pid, uid and gid", async (_, answerer) => {
    const { connection, client } = await connectChild();
    const creds = peerCredentials(socketFd(connection), answerer);
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

  it.each(ANSWERERS)("%s fails with ENOTSOCK on a non-socket fd, EBADF on a bad fd, and refuses a non-integer fd", (_, answerer) => {
    const fd = openSync("/dev/null", "r");
    fds.push(fd);
    expect(() => peerCredentials(fd, answerer)).toThrow(expect.objectContaining({ code: "ENOTSOCK", syscall: "getsockopt(SO_PEERCRED)" }));
    expect(() => peerCredentials(-1, answerer)).toThrow(expect.objectContaining({ code: "EBADF", syscall: "getsockopt(SO_PEERCRED)" }));
    expect(() => peerCredentials(1.5, answerer)).toThrow(/fd must be an integer/);
    expect(() => peerCredentials(2 ** 31, answerer)).toThrow(/fd must be an integer/);
  });

  it("peerPidfd fails on a non-socket fd", () => {
    const fd = openSync("/dev/null", "r");
    fds.push(fd);
    expect(() => peerPidfd(fd)).toThrow(NativeError);
  });

  it.each(ANSWERERS)("%s names the uid of a server run by another user, the way a client sees it", async (_, answerer) => {
    // An abstract socket, so that nobody can listen without a directory it may write.
    const name = `\0venom-native-peer-${process.pid}-${Math.random()}`;
    const script = `require("node:net").createServer(() => {}).listen(${JSON.stringify(name)}, () => console.log("READY"))`;
    const server = spawn("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child = server;
    await new Promise((resolve) => server.stdout?.once("data", resolve));
    const socket = new Socket();
    await new Promise<void>((resolve, reject) => socket.connect(name, resolve).once("error", reject));
    try {
      const creds = peerCredentials(socketFd(socket), answerer);
      expect(creds.pid).toBe(server.pid);
      expect(creds.uid).toBe(65534);
      expect(creds.uid).not.toBe(process.getuid?.());
    } finally {
      socket.destroy();
    }
  });

  it("socketFd refuses a socket that has no fd", () => {
    expect(() => socketFd(new Socket())).toThrow(/no file descriptor/);
  });
});
