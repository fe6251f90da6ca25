#!/usr/bin/env node
// A fake ACP agent, shipped with venom-orch for the demo, the tests and the
// conformance suite: it speaks the Agent Client Protocol on stdio through the
// protocol's reference SDK (agent side), reaches no network and no model, and
// acts out the scenario its prompt names, one per line:
//
//   tool KIND [PATH]     a tool call of KIND (read, edit, execute, …; "none" for no kind), then a permission request for it
//   remembered KIND [N]  a tool call of KIND (its id N characters long), then a permission request that omits the kind
//   noreject             a permission request offering allow options only
//   onlyalways           a permission request offering allow_always and reject_once only
//   ask-client METHOD    an agent-to-client request (fs/read_text_file, terminal/create, elicitation/create, x/unknown)
//   hold                 a permission request, then wait for the answer however long it takes
//   together KIND…       a tool call of each KIND, and a permission request for each, all at once
//   toolflood N          N tool calls (no permission asked), as fast as they go, then 1.5 s of work
//   fail TEXT            answer the prompt with a JSON-RPC error whose message is TEXT
//   oversized            one stdout line over 1 MiB
//   flood MIB            MIB mebibytes of message chunks
//   stubborn             start a grandchild that ignores HUP and TERM
//   echo-write PATH TEXT a subprocess calls venom-echo write (from inside the pane)
//   title TEXT           a tool call titled TEXT (no permission asked)
//   refuse               end the turn with stopReason "refusal"
//   exit CODE            exit at once with CODE
//   record               also keep the client's capabilities and every reply line in
//                        .acp-agent-<pid>.json in the cwd (venom-conformance reads it there)
//
// An argument `hang=METHOD` (initialize, session/new, session/set_mode) makes it
// never answer that request, as a real adapter does that needs a newer Node.
//
// Each scenario's result is one line of the reply (agent_message_chunk), so a
// test reads what the client answered. It writes its environment, argv and
// cwd to $HOME/runs/<pid>.json like the demo agent, its reply lines to
// $HOME/runs/<pid>.replies (a background job's reply reaches no caller), and logs on stderr.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const DEMO_AGENT = fileURLToPath(new URL("./demo-agent.mjs", import.meta.url));

const runs = process.env.HOME ? join(process.env.HOME, "runs") : null;
if (runs) {
  mkdirSync(runs, { recursive: true, mode: 0o700 });
  const record = { at: Date.now(), argv: process.argv.slice(2), cwd: process.cwd(), env: process.env };
  writeFileSync(join(runs, `${process.pid}.json`), JSON.stringify(record), { mode: 0o600 });
}
const log = (line) => process.stderr.write(`acp-agent: ${line}\n`);

const ALL_OPTIONS = [
  { optionId: "yes", name: "Allow", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
  { optionId: "never", name: "Always reject", kind: "reject_always" },
];

/** The request this run never answers (argv `hang=METHOD`), or null. */
const hang = process.argv.find((arg) => arg.startsWith("hang="))?.slice("hang=".length) ?? null;
/** A handler's answer, unless its method is the one to hang on: then a promise that never settles. */
const answer = (method, reply) => {
  if (method !== hang) return reply();
  log(`hanging on ${method}`);
  return new Promise(() => undefined);
};

let mode = "default";
let initialize = null;
let cancelled = false;
let nextTool = 1;

async function scenario(client, sessionId, line, say) {
  const [verb, ...rest] = line.trim().split(/\s+/);
  const toolCall = async (kind, title, locations = [], toolCallId = `t${nextTool++}`) => {
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: "tool_call", toolCallId, title, ...(kind ? { kind } : {}), locations, status: "pending" },
    });
    return toolCallId;
  };
  const ask = async (toolCall, options = ALL_OPTIONS) => {
    const { outcome } = await client.request(acp.methods.client.session.requestPermission, { sessionId, toolCall, options });
    return outcome.outcome === "selected" ? `selected ${options.find((o) => o.optionId === outcome.optionId)?.kind}` : "cancelled";
  };
  switch (verb) {
    case "tool": {
      const kind = rest[0] === "none" ? undefined : rest[0];
      const locations = rest[1] ? [{ path: rest[1] }] : [];
      const id = await toolCall(kind, `${rest[0]} ${rest[1] ?? "something"}`, locations);
      return say(
        `tool ${rest[0]}: ${await ask({ toolCallId: id, ...(kind ? { kind } : {}), title: `${rest[0]} ${rest[1] ?? ""}`, locations })}`,
      );
    }
    case "remembered": {
      const id = await toolCall(rest[0], `${rest[0]} remembered`, [], rest[1] ? `t${nextTool++}`.padEnd(Number(rest[1]), "x") : undefined);
      return say(`remembered ${rest[0]}: ${await ask({ toolCallId: id })}`);
    }
    case "noreject": {
      const id = await toolCall("edit", "edit noreject.txt");
      return say(
        `noreject: ${await ask(
          { toolCallId: id },
          ALL_OPTIONS.filter((o) => o.kind.startsWith("allow")),
        )}`,
      );
    }
    case "onlyalways": {
      const id = await toolCall("edit", "edit onlyalways.txt");
      return say(
        `onlyalways: ${await ask(
          { toolCallId: id },
          ALL_OPTIONS.filter((o) => o.kind === "allow_always" || o.kind === "reject_once"),
        )}`,
      );
    }
    case "ask-client": {
      const params = {
        sessionId,
        path: "/etc/hostname",
        command: "id",
        content: "x",
        message: "?",
        requestedSchema: { type: "object", properties: {} },
      };
      try {
        const result = await client.request(rest[0], params);
        return say(`ask-client ${rest[0]}: answered ${JSON.stringify(result)}`);
      } catch (error) {
        return say(`ask-client ${rest[0]}: error ${error.code} ${error.message}`);
      }
    }
    case "together": {
      const ids = await Promise.all(rest.map((kind) => toolCall(kind, `${kind} together`)));
      const answers = await Promise.all(ids.map((id, i) => ask({ toolCallId: id, kind: rest[i], title: `${rest[i]} together` })));
      return say(`together: ${rest.map((kind, i) => `${kind} ${answers[i]}`).join(", ")}`);
    }
    case "fail":
      throw new acp.RequestError(-32603, rest.join(" "));
    case "toolflood": {
      for (let i = 0; i < Number(rest[0]); i++) await toolCall("read", `read flood-${i}`);
      // Then a while of work, as an agent does after its tool calls: the client has them all before the turn ends.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return say(`toolflood: ${rest[0]} sent`);
    }
    case "hold": {
      const id = await toolCall("execute", "execute hold");
      log("holding a permission request");
      return say(`hold: ${await ask({ toolCallId: id })}`);
    }
    case "oversized":
      process.stdout.write(`${"x".repeat(1024 * 1024 + 16)}\n`);
      return say("oversized: sent");
    case "flood": {
      const chunk = "f".repeat(64 * 1024);
      for (let sent = 0; sent < Number(rest[0]) * 16; sent++) {
        await client.notify(acp.methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
        });
      }
      return say("\nflood: done");
    }
    case "stubborn": {
      const child = spawn(process.execPath, ["-e", "process.on('SIGHUP',()=>{});process.on('SIGTERM',()=>{});setInterval(()=>{},1000)"], {
        stdio: "ignore",
      });
      return say(`stubborn ${child.pid}`);
    }
    case "echo-write": {
      const [path, ...text] = rest;
      const child = spawn(process.execPath, [DEMO_AGENT, `write ${path} ${text.join(" ")}`], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      const code = await new Promise((resolve) => child.once("exit", resolve));
      return say(`echo-write: exit ${code} ${out.trim().split("\n").at(-1) ?? ""}`);
    }
    case "title":
      await toolCall("read", rest.join(" "));
      return say("title: sent");
    case "exit":
      process.exit(Number(rest[0]));
      return;
    default:
      return say(`unknown scenario ${verb}`);
  }
}

const app = acp
  .agent({ name: "acp-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) =>
    answer("initialize", () => {
      initialize = params;
      return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
    }),
  )
  .onRequest(acp.methods.agent.session.new, ({ params }) =>
    answer("session/new", () => {
      log(`session/new cwd ${params.cwd} mcpServers ${params.mcpServers.length}`);
      return {
        sessionId: "s1",
        modes: {
          currentModeId: mode,
          availableModes: [
            { id: "default", name: "Ask" },
            { id: "bypassPermissions", name: "Ask nothing" },
          ],
        },
      };
    }),
  )
  .onRequest(acp.methods.agent.session.setMode, ({ params }) =>
    answer("session/set_mode", () => {
      mode = params.modeId;
      return {};
    }),
  )
  .onNotification(acp.methods.agent.session.cancel, () => {
    log("session/cancel");
    cancelled = true;
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
    cancelled = false;
    const lines = text.split("\n").filter((l) => l.trim());
    const replies = [];
    const keep = lines[0]?.trim() === "record";
    // Written whole, then renamed into place: venom-conformance reads the record while it is being rewritten.
    const save = () => {
      if (!keep) return;
      const partial = join(process.cwd(), `.partial-acp-agent-${process.pid}`);
      writeFileSync(partial, JSON.stringify({ capabilities: initialize?.clientCapabilities, replies }));
      renameSync(partial, join(process.cwd(), `.acp-agent-${process.pid}.json`));
    };
    const say = (line) => {
      if (runs) appendFileSync(join(runs, `${process.pid}.replies`), `${line}\n`);
      replies.push(line);
      save();
      return client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${line}\n` } },
      });
    };
    await say(`capabilities ${JSON.stringify(initialize?.clientCapabilities)} mode ${mode}`);
    for (const line of keep ? lines.slice(1) : lines) {
      if (line.trim() === "refuse") return { stopReason: "refusal" };
      // A cancelled turn ends after the scenario in progress (its pending permission is answered `cancelled`).
      await scenario(client, params.sessionId, line, say);
      if (cancelled) return { stopReason: "cancelled" };
    }
    return { stopReason: "end_turn" };
  });

log("ready");
const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
log("connection closed");
