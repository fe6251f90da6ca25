// 6. The RPC floor (issue 11, item 2): `echo` calls through the whole venom/1
// stack (venom-echo: peer check, framing, zod, the dispatcher, pino) against a
// bare NDJSON echo server (floor-server.mjs), with 1 and 32 clients, each a
// connection making one call at a time. Both are driven by the same raw NDJSON
// client in this process, so the difference is the server's.
import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { join } from "node:path";
import { defer, ECHO, fmt, median, percentile, ROOT, spread, startMux, tempDir, within } from "./lib.mjs";

export const title = "RPC floor: venom-echo `echo` calls against a bare NDJSON echo server";

const CONCURRENCY = [1, 32];

/** One NDJSON connection: request() resolves with the reply of the same id. */
async function connect(path) {
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

const ECHO_CALL = { name: "echo", arguments: { text: "hello, floor" } };

/** `clients` connections calling echo back to back for `ms`; every call's latency. */
async function load(open, clients, ms) {
  const connections = await Promise.all(Array.from({ length: clients }, open));
  const latencies = [];
  const deadline = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    connections.map(async (connection) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const result = await connection.request("tools/call", ECHO_CALL);
        latencies.push(performance.now() - t0);
        if (result.content !== ECHO_CALL.arguments.text) throw new Error(`echo answered ${JSON.stringify(result).slice(0, 200)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const connection of connections) connection.close();
  return {
    callsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    calls: latencies.length,
  };
}

async function startFloor() {
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

export async function run({ quick }) {
  const ms = quick ? 300 : 10_000;
  const warmupMs = quick ? 100 : 2_000;
  const rounds = quick ? 1 : 3;
  const floorSocket = await startFloor();
  const mux = await startMux("rpc");
  const echo = mux.startApp(ECHO, "echo");
  const systems = {
    floor: () => connect(floorSocket),
    venom: async () => {
      const connection = await connect(echo.socket);
      await connection.request("hello", { protocol: "venom/1", client: { name: "venom-bench", version: "0" } });
      return connection;
    },
  };

  const results = {};
  for (const clients of CONCURRENCY) {
    results[clients] = { floor: [], venom: [] };
    for (const open of Object.values(systems)) await load(open, clients, warmupMs);
    // Interleaved rounds: noise on a shared machine hits both alike.
    for (let round = 0; round < rounds; round++) {
      for (const [name, open] of Object.entries(systems)) results[clients][name].push(await load(open, clients, ms));
    }
  }

  const rows = [];
  const ratios = [];
  const targets = [];
  for (const clients of CONCURRENCY) {
    const { floor, venom } = results[clients];
    for (const [label, list] of [
      ["bare NDJSON server", floor],
      ["venom-echo", venom],
    ]) {
      rows.push([
        `${label}, ${clients} client${clients > 1 ? "s" : ""}`,
        spread(
          list.map((r) => r.callsPerSecond),
          (v) => v.toFixed(0),
        ),
        spread(
          list.map((r) => r.p50),
          fmt.ms,
        ),
        spread(
          list.map((r) => r.p99),
          fmt.ms,
        ),
      ]);
    }
    const throughput = venom.map((r, i) => r.callsPerSecond / (floor[i]?.callsPerSecond ?? Number.NaN));
    const p99 = venom.map((r, i) => r.p99 / (floor[i]?.p99 ?? Number.NaN));
    ratios.push([`venom / floor calls per second, ${clients} client(s) (min / median / max of rounds)`, spread(throughput, fmt.ratio)]);
    ratios.push([`venom / floor p99 latency, ${clients} client(s) (min / median / max of rounds)`, spread(p99, fmt.ratio)]);
    targets.push({
      target: `RPC throughput at least 0.5× the floor's, ${clients} client(s)`,
      measured: fmt.ratio(median(throughput)),
      met: median(throughput) >= 0.5,
    });
    targets.push({
      target: `RPC p99 within 2× the floor's, ${clients} client(s)`,
      measured: fmt.ratio(median(p99)),
      met: median(p99) <= 2,
    });
  }
  return {
    title,
    setup: `${rounds} round(s) of ${ms / 1000} s per system and concurrency after ${warmupMs / 1000} s of warm-up, interleaved; each client is one connection making one \`tools/call\` of \`echo\` at a time (venom-echo: after \`hello\`, default policy, an owner-context client). Each server runs in its own process and session (the floor detached as \`venom-echo start\` detaches the daemon); the clients share this process.`,
    columns: ["server, clients", "calls/s min / median / max", "p50 min / median / max", "p99 min / median / max"],
    rows,
    ratios,
    targets,
    notes:
      "What a profile of the venom-echo daemon under this load shows (`node --cpu-prof apps/venom-echo/dist/main.js serve`, 8 clients, 40 000 calls, on this shared machine): per call it sends `event/tool` started, `event/tool` finished and the reply. `RpcPeer` corks the lines of one turn of the event loop into one `writev` (joining them into one string and one `write(2)` instead made no difference in the profile: 18.3% against 18.1% of the daemon's time), and the pino log is written once per turn of the event loop instead of one synchronous `write(2)` per line (packages/runtime/src/log.ts; what is pending when the process exits — a stop, a handled signal, `process.exit`, an uncaught exception — is written by an exit handler, and only SIGKILL or a native crash can lose the lines of the one turn it interrupts: packages/runtime/test/log.test.ts, apps/venom-echo/test/log.test.ts). With that, the daemon's busy CPU per call went from about 134 µs to about 111 µs in that profile: the log from ~22 µs (16 µs of it the write) to ~6 µs. What remains: the socket write, ~32 µs a call, most of it waking the client that waits for the answer (the floor's write costs ~6 µs because its client is always busy); garbage collection ~14 µs; two AbortControllers per call (the connection's, for `tools/cancel`, and the dispatcher's, for the deadline) ~8 µs; then the dispatcher, zod on the envelope, the params and the tool's arguments, the session's grant, pino's formatting and redaction, and JSON. With one client the round trip is what counts: the daemon's ~100 µs of work against the floor's ~10 µs. The floor server does none of this: no peer check, events, schema, dispatcher or log.",
    data: { ms, rounds, results },
  };
}
