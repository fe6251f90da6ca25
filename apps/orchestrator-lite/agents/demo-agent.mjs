#!/usr/bin/env node
// A local demo agent, shipped with venom-orch for the demo and the tests: it
// reaches no network and no model. Like a real agent CLI it takes its prompt as
// the last argument and acts on it, talking venom/1 to the daemons of its
// VENOM_HOME as any other program would (node:net only, none of Venom's code).
//
// It writes what it was started with (argv, cwd, environment) to
// $HOME/runs/<pid>.json, so tests can see exactly what a launch handed over.
//
// Prompts it understands (first word):
//   write PATH TEXT      venom-echo write; answers "approve" to any approval it is asked itself
//   read PATH            venom-echo read
//   put PATH TEXT        write PATH itself, relative to its cwd, as an agent's own tool would (\n in TEXT: a newline)
//   mux-stop             venom-mux daemon/stop
//   mux-new              venom-mux pane/new (a new pane one level deeper)
//   delegate AGENT TEXT  venom-orch agent (a nested launch)
//   restart-when-idle APP  daemon/restart { whenIdle: true }, the one management call a delegate may make
//   sleep SECONDS        sleep, then exit 0
//   say TEXT             print TEXT as it is (control characters included)
//   hold TEXT            print TEXT, then wait a minute (something to attach to)
//   exit CODE            exit with CODE
//   anything else        say how long the prompt was, exit 0
import { mkdirSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";

const prompt = process.argv.at(-1) ?? "";
const home = process.env.HOME;
if (home) {
  mkdirSync(join(home, "runs"), { recursive: true, mode: 0o700 });
  const record = { at: Date.now(), argv: process.argv.slice(2), cwd: process.cwd(), env: process.env };
  writeFileSync(join(home, "runs", `${process.pid}.json`), JSON.stringify(record), { mode: 0o600 });
}

/** One venom/1 session: hello, one request, the answer. Approval requests sent to us are approved (a self-approval attempt). */
async function call(app, method, params) {
  const socket = createConnection(join(process.env.VENOM_HOME ?? "", "state", `${app}.sock`));
  const pending = new Map();
  let buffer = "";
  let next = 1;
  socket.on("data", (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.method === "approval/request") {
        console.log(`(asked to approve my own ${message.params.tool}: approving)`);
        socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { decision: "approve" } })}\n`);
      } else if (message.id !== undefined && pending.has(message.id)) {
        pending.get(message.id)(message);
      }
    }
  });
  const request = (m, p) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, resolve);
      socket.once("error", reject);
      socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: m, params: p })}\n`);
    });
  try {
    const hello = await request("hello", { protocol: "venom/1", client: { name: "demo-agent", version: "1" }, approvals: true });
    if (hello.error) return hello;
    return await request(method, params);
  } finally {
    socket.end();
  }
}

function report(what, reply) {
  if (reply.error) console.log(`${what}: refused: ${reply.error.message}`);
  else if (reply.result?.status)
    console.log(`${what}: ${reply.result.status}: ${reply.result.content || reply.result.error?.message || ""}`);
  else console.log(`${what}: ${JSON.stringify(reply.result)}`);
  return reply.error || (reply.result?.status && reply.result.status !== "ok") ? 1 : 0;
}

const [verb, first, ...rest] = prompt.split(" ");
switch (verb) {
  case "write":
    process.exitCode = report(
      `write ${first}`,
      await call("echo", "tools/call", { name: "write", arguments: { path: first, content: rest.join(" ") } }),
    );
    break;
  case "put":
    writeFileSync(first, rest.join(" ").replaceAll("\\n", "\n"));
    console.log(`put ${first}`);
    break;
  case "read":
    process.exitCode = report(`read ${first}`, await call("echo", "tools/call", { name: "read", arguments: { path: first } }));
    break;
  case "mux-stop":
    process.exitCode = report("venom-mux stop", await call("mux", "daemon/stop", {}));
    break;
  case "mux-new":
    process.exitCode = report("venom-mux new", await call("mux", "pane/new", { argv: ["true"] }));
    break;
  case "delegate":
    process.exitCode = report(
      `delegate to ${first}`,
      await call("orch", "tools/call", { name: "agent", arguments: { agent: first, prompt: rest.join(" ") } }),
    );
    break;
  case "restart-when-idle":
    process.exitCode = report(`${first} restart --when-idle`, await call(first, "daemon/restart", { whenIdle: true }));
    break;
  case "say":
    console.log([first, ...rest].join(" "));
    break;
  case "hold":
    console.log([first, ...rest].join(" "));
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    break;
  case "sleep":
    await new Promise((resolve) => setTimeout(resolve, Number(first) * 1000));
    break;
  case "exit":
    process.exitCode = Number(first);
    break;
  default:
    console.log(`demo agent: got a prompt of ${prompt.length} characters`);
}
