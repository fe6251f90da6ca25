#!/usr/bin/env node
// venom-conformance's probe agent: configure it as `[agents.probe]` of the
// daemon under test (`executable = ".../conformance/probe/agent.mjs"`) so the
// orch checks can see what a launch hands over. It records its argv, cwd and
// environment in its cwd as `.venom-conformance-probe-<pid>.json`. Given the
// prompt "venom-conformance: ask through the relay" it also calls the `agent`
// tool of $VENOM_HOME/state/orch.sock with a gate of its own that approves
// anything (a self-approval attempt) and records what came back.
import { renameSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";

const RELAY_PROMPT = "venom-conformance: ask through the relay";
const prompt = process.argv.at(-1);
const record = { argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, askedMyself: false, relayed: null };
// Written whole, then renamed into place: the checks read the record while the probe may be rewriting it.
const save = () => {
  const partial = join(process.cwd(), `.venom-conformance-partial-${process.pid}`);
  writeFileSync(partial, JSON.stringify(record));
  renameSync(partial, join(process.cwd(), `.venom-conformance-probe-${process.pid}.json`));
};
save();

if (prompt === RELAY_PROMPT) {
  const socket = createConnection(join(process.env.VENOM_HOME ?? "", "state", "orch.sock"));
  let buffer = "";
  const send = (message) => socket.write(`${JSON.stringify(message)}\n`);
  const done = new Promise((resolve) => {
    socket.on("data", (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.method === "approval/request") {
          record.askedMyself = true;
          send({ jsonrpc: "2.0", id: message.id, result: { decision: "approve" } });
        } else if (message.id === 2) resolve(message);
      }
    });
    socket.on("close", () => resolve({ error: { message: "the connection closed" } }));
  });
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "hello",
    params: { protocol: "venom/1", client: { name: "venom-conformance-probe", version: "1" }, approvals: true, autoApprove: true },
  });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "agent", arguments: { agent: "probe", prompt: "nested" } } });
  const reply = await done;
  record.relayed = reply.error ? { error: reply.error.message } : { status: reply.result?.status };
  socket.end();
  save();
}
