// The RPC floor (docs/benchmarks.md, "RPC floor"): the least a Node server can do for one
// NDJSON request over a Unix socket — split lines, JSON.parse, answer with
// JSON.stringify — with no peer check, schema, dispatcher or log. `node
// bench/floor-server.mjs SOCKET` prints "ready" once it listens.
import { createServer } from "node:net";

const [path] = process.argv.slice(2);
const server = createServer((socket) => {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const { id, params } = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      // Shaped like venom-echo's tool result, so both send about the same bytes.
      socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, result: { status: "ok", content: params.arguments.text } })}\n`);
    }
  });
  socket.on("error", () => {});
});
server.listen(path, () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => process.exit(0));
