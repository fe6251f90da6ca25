// 6. The RPC floor (docs/benchmarks.md, "RPC floor"): `echo` calls through the whole venom/1
// stack (venom-echo: peer check, framing, zod, the dispatcher, pino) against a
// bare NDJSON echo server (floor-server.mjs), with 1 and 32 clients, each a
// connection making one call at a time. Both are driven by the same raw NDJSON
// client in this process, so the difference is the server's.
import { connect, startFloor } from "./floor.mjs";
import { ECHO, fmt, median, percentile, spread, startMux } from "./lib.mjs";

export const title = "RPC floor: venom-echo `echo` calls against a bare NDJSON echo server";

const CONCURRENCY = [1, 32];

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
      "What a profile of the venom-echo daemon under this load shows (`node --cpu-prof apps/venom-echo/dist/main.js serve`, 8 clients for 5 s, this build and the one before it side by side in one run on this shared machine): the daemon's busy time per call went from about 105 µs to about 44 µs, and its CPU time per call (from /proc) from about 87 µs to 43 µs. Before, every tool call made two AbortControllers (the connection's, for `tools/cancel`, and the dispatcher's, for the deadline: ~6 µs of signal creation alone); now it makes one `CallCancellation` (packages/proto/src/cancellation.ts) whose AbortSignal exists only once a tool, a decorator or an approval prompt asks for it (a call cancelled while its approval is asked is still denied: apps/venom-echo/test/run.test.ts; a tool that looks at its signal after the cancel sees it aborted: packages/proto/test/dispatcher.test.ts). A tool's result was built by spreading the tool's outcome, which made a new hidden class for every call and sent every later look at the result megamorphic; it is built field by field now. The approval is decided without an await when nobody needs to be asked, the call's summary is made only for a prompt, requests are routed without an async frame per layer, the dispatcher's view of a session is made once at hello, a call id the server chooses is a random per-connection prefix and a count instead of a UUID per call, and the one log line per tool call (tool, status, duration: no field a secret could be in) skips pino's redaction pass (apps/venom-echo/test/secrets.test.ts checks that the line holds nothing else). Garbage per call fell from about 20 KB to about 10 KB (measured in-process with V8's sampling heap profiler), garbage collection from ~9 µs to ~4 µs a call. Nothing of the security path is skipped: the peer check at connect, zod on the envelope, the params and the tool's arguments, the session's grant, the deadline, cancellation, both `event/tool` notifications (their one recipient is the calling connection; venom/1 has no subscription a client could decline) and a log line per call. `RpcPeer` writes the lines of one turn of the event loop (a call's events and its reply) as one string in one write: writing each line as soon as it is ready cost more CPU per call with 32 clients (42–49 µs against 37–41 µs), and one string instead of the same lines corked into a `writev` of each was ~6% less CPU per call (A/B, 5 rounds each). A later profile (32 clients for 10 s, `node --cpu-prof apps/venom-echo/dist/main.cjs serve`) found the daemon using one core whole, and about 60% of its busy time in that write (`writeUtf8String`: the system call, which wakes a client that sleeps while it waits; the floor's client is rarely asleep, so its writes are cheap); zod, the dispatcher, pino and garbage collection were a few % each. Writing a connection's lines as soon as its reply is ready, instead of at the end of the turn, made no difference beyond the noise in an interleaved A/B (4 rounds of 5 s each): the write count is the same, one per call. The floor server does none of this: no peer check, events, schema, dispatcher or log.",
    data: { ms, rounds, results },
  };
}
