/**
 * What the Security Model (conformance/spec/security-model.txt) asks of every process a tool starts: it is a delegate (markers
 * in its environment, a record while it runs), it carries no credentials, and
 * it is never started past the delegation depth limit.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, MARKER_DEPTH, MARKER_PARENT, PROTOCOL } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import type { CheckContext, HelloResult } from "../context.js";
import { eventually, runArguments, shellQuote, whileRunning } from "../probes.js";
import { expect, expectError, fail } from "../verdict.js";
import type { WireClient } from "../wire-client.js";
import { ONE_RELAY, RELAY_RULE } from "./orch.js";

const TAG_RULE = securityModel(
  "Delegated runs",
  "SCV tags each delegated process through its environment (`SCV_PARENT`, `SCV_DELEGATION_DEPTH`), records it under `$SCV_HOME/state/delegations` while it runs, stops its process group and tagged descendants when it ends, and has the daemon stop orphans whose owning SCV process died.",
);
const CHILD_ENV = design(
  "Containment (each app supplies its rules; the runtime supplies the mechanisms)",
  "Env for delegated children: remove Venom selectors, every `*_API_KEY`, and each adapter's declared credential/endpoint/state variables; set a private HOME, XDG dirs and the agent's own state variable inside `$VENOM_HOME/agents/<name>`; add the markers.",
);
const DEPTH_RULE = securityModel(
  "Delegated runs",
  "Delegation depth is bounded by `agent.max_delegation_depth`, and at any depth above zero the `scv` CLI refuses to run, start, stop, restart, or update a daemon or manage channels, so an SCV started by a delegated agent cannot manage its parent.",
);
/** Questions of one delegation that may wait for its launcher at once (docs/security-model.md, the approval relay). */
const RELAY_LIMIT = 16;
/** The calls the run's process pipelines: far past the bound, within what a daemon serves on four connections. */
const FLOOD_CALLS = 40;
/**
 * The run's process: four connections to the daemon, each pipelining ten
 * calls that need approval (argv[3]: the run tool's arguments); each answer
 * one JSON line in argv[2], and it exits once every call is answered.
 */
const FLOOD = `
const net = require("node:net");
const fs = require("node:fs");
const [socket, out, args, total] = process.argv.slice(1);
let answered = 0;
for (let c = 0; c * 10 < Number(total); c++) {
  const s = net.createConnection(socket);
  let buf = "";
  s.on("data", (d) => {
    buf += d;
    for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
      const m = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (typeof m.id !== "number" || m.id < 2) continue;
      fs.appendFileSync(out, JSON.stringify(m.result ?? m.error) + "\\n");
      if (++answered === Number(total)) process.exit(0);
    }
  });
  s.on("error", () => {});
  s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: "${PROTOCOL}", client: { name: "flood", version: "0" } } }) + "\\n");
  for (let i = 0; i < 10 && c * 10 + i < Number(total); i++) {
    s.write(JSON.stringify({ jsonrpc: "2.0", id: i + 2, method: "tools/call", params: { name: "run", arguments: JSON.parse(args) } }) + "\\n");
  }
}
setTimeout(() => process.exit(1), 100000);
`;

/** What the flood's calls got so far: a tool result or an error, one per answered call. */
function floodAnswers(path: string): { status?: string; message?: string; error?: { message?: string } }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The deepest delegation a hello may claim (proto's HelloParams): past any depth limit a daemon could configure. */
const DEEPEST_CLAIM = 1000;

/** A process the run tool started and that waits, as the suite saw it from outside: its pid and its environment. */
interface Observed {
  client: WireClient;
  hello: HelloResult;
  pid: number;
  env: Map<string, string>;
}

/**
 * Start a run whose shell writes its pid and its own environment
 * (/proc/$$/environ: exactly what the daemon gave it) and waits until the
 * suite releases it; `look` judges it while it runs. The call always ends,
 * and its result is returned.
 */
async function whileItRuns(ctx: CheckContext, label: string, look: (run: Observed) => void) {
  const tool = ctx.tool("run");
  if (!tool) fail("no run tool");
  const { client, hello } = await ctx.session({ label, approve: "approve" });
  const dir = ctx.dir(label);
  const [pidFile, envFile, release] = ["pid", "environ", "release"].map((name) => join(dir, name)) as [string, string, string];
  const script = [
    `cat /proc/$$/environ > ${shellQuote(envFile)}`,
    `echo $$ > ${shellQuote(`${pidFile}.tmp`)} && mv ${shellQuote(`${pidFile}.tmp`)} ${shellQuote(pidFile)}`,
    `i=0; while [ ! -e ${shellQuote(release)} ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done`,
  ].join("\n");
  const call = ctx.callTool(client, "run", runArguments(tool, script), { timeoutSeconds: 120, waitMs: 150_000 });
  try {
    const pid = await whileRunning(
      call,
      eventually(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined), "the run's process writing its pid"),
      "its process wrote its pid",
    );
    const env = new Map(
      readFileSync(envFile, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] as const),
    );
    ctx.see("the run's process", `pid ${pid}, ${env.size} environment variables`);
    look({ client, hello, pid, env });
  } finally {
    writeFileSync(release, "");
  }
  return call;
}

/** The delegation records under $VENOM_HOME/state/delegations: each file's name and what it holds (undefined when not JSON). */
function records(ctx: CheckContext): { file: string; record: Record<string, unknown> | undefined }[] {
  const home = ctx.target.home;
  if (!home) fail("no instance home: pass --home so the delegation records can be read");
  const dir = join(home, "state", "delegations");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((file) => {
    try {
      return { file, record: JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown> };
    } catch {
      return { file, record: undefined };
    }
  });
}

export const delegatedChecks: readonly Check[] = [
  {
    id: "process/run-markers",
    level: "MUST",
    requirement: TAG_RULE,
    also: [CHILD_ENV],
    expected: `a process the run tool starts carries ${MARKER_PARENT} (not empty) and ${MARKER_DEPTH} one deeper than the session that started it (1 for the owner)`,
    needs: ["run"],
    async run(ctx) {
      let seen = "";
      await whileItRuns(ctx, "markers", ({ hello, env }) => {
        const parent = env.get(MARKER_PARENT);
        const depth = env.get(MARKER_DEPTH);
        seen = `${MARKER_PARENT}=${JSON.stringify(parent)}, ${MARKER_DEPTH}=${JSON.stringify(depth)}`;
        ctx.see("its markers", seen);
        expect(parent, `the run's process has no ${MARKER_PARENT}: it is not known as a delegate`);
        expect(
          depth === String(hello.principal.depth + 1),
          `the run's process has ${MARKER_DEPTH}=${JSON.stringify(depth)}, not ${hello.principal.depth + 1} (the session's depth ${hello.principal.depth} plus one)`,
        );
      });
      return seen;
    },
  },
  {
    id: "process/run-record",
    level: "MUST",
    requirement: TAG_RULE,
    also: [
      design(
        "Delegation across daemons",
        "The pane carries `VENOM_PARENT=<instance>/<delegation id>` and `VENOM_DELEGATION_DEPTH=n+1`; the record in `state/delegations/` names pid, pidfd-verified start time, pgid, depth, grant, and **the owning daemon and session**.",
      ),
    ],
    expected:
      "while a run's process runs, a JSON file in $VENOM_HOME/state/delegations names its pid (and, when the process carries VENOM_PARENT, the same parent); once the call has ended the record is gone",
    needs: ["run"],
    async run(ctx) {
      let found = "";
      let pid = 0;
      await whileItRuns(ctx, "record", (run) => {
        pid = run.pid;
        const all = records(ctx);
        ctx.see(
          "state/delegations",
          all.map(({ file, record }) => `${file}: ${JSON.stringify(record) ?? "not JSON"}`).join("; ") || "empty",
        );
        const mine = all.find(({ record }) => record?.pid === run.pid);
        expect(mine, `no delegation record names the run's process (pid ${run.pid}) while it runs`);
        const parent = run.env.get(MARKER_PARENT);
        expect(
          parent === undefined || mine.record?.parent === parent,
          `the record ${mine.file} names parent ${JSON.stringify(mine.record?.parent)}, the process carries ${MARKER_PARENT}=${parent}`,
        );
        found = mine.file;
      });
      await eventually(() => (records(ctx).some(({ record }) => record?.pid === pid) ? undefined : true), "the record's removal", 5_000);
      return `record ${found} while it ran, gone after the call ended`;
    },
  },
  {
    id: "process/run-no-api-keys",
    level: "MUST",
    requirement: rfc0008("Secrets and sensitive data", "command argv or environment unless an explicit tool contract and policy allow it."),
    also: [CHILD_ENV],
    expected:
      "a process the run tool starts has no variable whose name ends in _API_KEY (in any case), and the canary planted in the daemon's environment is in none of its variables",
    needs: ["run"],
    async run(ctx) {
      let count = 0;
      await whileItRuns(ctx, "api-keys", ({ env }) => {
        count = env.size;
        const keys = [...env.keys()].filter((key) => /_API_KEY$/i.test(key));
        const canary = ctx.target.canary;
        const carrying = canary ? [...env].filter(([, value]) => value.includes(canary)).map(([key]) => key) : [];
        expect(keys.length === 0, `the run's process inherited ${keys.join(", ")}`);
        expect(carrying.length === 0, `the run's process carries the daemon's canary secret in ${carrying.join(", ")}`);
      });
      return `${count} variables, none ending in _API_KEY${ctx.target.canary ? ", none holding the canary" : ""}`;
    },
  },
  {
    id: "process/depth-limit",
    level: "MUST",
    requirement: DEPTH_RULE,
    also: [
      design(
        "Delegation across daemons",
        "Depth is bounded by `agent.max_delegation_depth`; a call that would exceed it is refused before anything starts.",
      ),
    ],
    expected: `a session that claims delegation depth ${DEEPEST_CLAIM} asks run for a command: it is refused with error ${ErrorCode.DepthLimit} (at hello, or at the call before approval is asked) and nothing starts`,
    needs: ["run"],
    async run(ctx) {
      const tool = ctx.tool("run");
      if (!tool) fail("no run tool");
      const client = await ctx.connect("deep", "approve");
      const delegation = { depth: DEEPEST_CLAIM, parent: "venom-conformance/depth-probe" };
      const params = { protocol: PROTOCOL, client: { name: "venom-conformance", version: "0" }, approvals: true, delegation };
      const hello = await client.request("hello", params);
      if (hello.error) {
        expectError(hello, ErrorCode.DepthLimit, `hello claiming depth ${DEEPEST_CLAIM}`);
        return `hello at depth ${DEEPEST_CLAIM} refused with ${ErrorCode.DepthLimit}`;
      }
      const file = join(ctx.dir("depth"), "ran");
      const reply = await client.request("tools/call", {
        name: "run",
        arguments: runArguments(tool, `touch ${shellQuote(file)}`),
        timeoutSeconds: 30,
      });
      const started = existsSync(file);
      ctx.see("the command's file", started ? "created: the command ran" : "absent");
      expect(!started, `a run at depth ${DEEPEST_CLAIM + 1} started its command`);
      expectError(reply, ErrorCode.DepthLimit, `run at depth ${DEEPEST_CLAIM + 1}`);
      const asked = client.requests.filter((request) => request.method === "approval/request").length;
      expect(asked === 0, `the daemon asked for approval (${asked} times) of a run it had to refuse for its depth`);
      return `run at depth ${DEEPEST_CLAIM + 1} refused with ${ErrorCode.DepthLimit} before approval; nothing started`;
    },
  },
  {
    id: "process/relay-bounded",
    level: "MUST",
    requirement: RELAY_RULE,
    also: [ONE_RELAY],
    expected: `a run's process pipelines ${FLOOD_CALLS} calls that need approval: they are asked of the session that started the run, at most ${RELAY_LIMIT} waiting at once, and the others are refused at once (never ok), naming the bound; meanwhile a new connection of the owner is served`,
    needs: ["run"],
    async run(ctx) {
      const tool = ctx.tool("run");
      if (!tool) fail("no run tool");
      const relayedLabel = (params: unknown) => (params as { label?: string }).label?.includes(" via ") === true;
      // The launcher approves its own run and leaves every relayed question waiting, as a person who has not answered yet.
      const { client } = await ctx.session({ label: "launcher", approve: (params) => (relayedLabel(params) ? "hold" : "approve") });
      const out = join(ctx.dir("relay-bounded"), "answers");
      const flood = [
        process.execPath,
        "-e",
        FLOOD,
        ctx.target.socket,
        out,
        JSON.stringify(runArguments(tool, "true")),
        String(FLOOD_CALLS),
      ];
      const call = ctx.callTool(client, "run", runArguments(tool, `exec ${flood.map(shellQuote).join(" ")}`), {
        timeoutSeconds: 120,
        waitMs: 150_000,
      });
      const relayed = () => client.requests.filter((r) => r.method === "approval/request" && relayedLabel(r.params)).length;
      let seen = "";
      try {
        await whileRunning(
          call,
          eventually(
            () => (floodAnswers(out).length + relayed() >= FLOOD_CALLS ? true : undefined),
            "every call of the flood answered or asked",
            60_000,
          ),
          "every call of the flood was answered or asked",
        );
        const answers = floodAnswers(out);
        seen = `${relayed()} asked of the launching session, ${answers.length} answered at once`;
        ctx.see("the flood", `${seen}; first answer ${JSON.stringify(answers[0] ?? null).slice(0, 300)}`);
        expect(relayed() > 0, "no call of the run's process was asked of the session that started the run");
        expect(
          relayed() <= RELAY_LIMIT,
          `${relayed()} questions of one delegation waited at once for the launching session (at most ${RELAY_LIMIT})`,
        );
        expect(!answers.some((a) => a.status === "ok"), "a call of the flood went through although nobody approved it");
        const said = (a: (typeof answers)[number]) => a.error?.message ?? a.message ?? "";
        ctx.should(
          answers.every((a) => said(a).includes(String(RELAY_LIMIT))),
          `the refusals do not name the bound (${RELAY_LIMIT})`,
        );
        await ctx.assertServing();
      } finally {
        client.answerHeld("deny");
      }
      await call;
      return `${seen}; the owner was served meanwhile`;
    },
  },
];
