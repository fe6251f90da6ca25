// The floor (floor-server.mjs): the least a Node server can do for one NDJSON
// request over a Unix socket, started as a daemon is, and the raw NDJSON client
// the steps that compare against it share (rpc.mjs; scale.mjs, as the
// scheduling floor under load).
import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { join } from "node:path";
import { defer, ROOT, tempDir, within } from "./lib.mjs";

/** One NDJSON connection: request() resolves with the reply of the same id. */
export async function connect(path) {
  const socket = createConnection(path);
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const pending = new Map();
  let nextId = 1;
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const reply = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if (reply.error) waiter?.reject(new Error(`${reply.error.code}: ${reply.error.message}`));
      else waiter?.resolve(reply.result);
    }
  });
  return {
    request(method, params) {
      const id = nextId++;
      socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => socket.destroy(),
  };
}

/** The floor server, listening; resolves with its socket path. */
export async function startFloor() {
  const socket = join(tempDir("rpc-floor"), "floor.sock");
  // Detached (its own session), as `venom-echo start` runs the daemon: with the kernel's autogroup
  // scheduling, a process in its own session waits differently for a CPU on a loaded machine.
  const child = spawn(process.execPath, [join(ROOT, "bench/floor-server.mjs"), socket], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  defer(() => child.kill("SIGKILL"));
  await within(new Promise((resolve) => child.stdout.once("data", resolve)), 30_000, "the floor server to listen");
  return socket;
}
