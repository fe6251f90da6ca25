import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, MARKER_DEPTH, MARKER_PARENT, PaneInfoSchema, PaneListResultSchema, PROTOCOL } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { nonce } from "../probes.js";
import { expect, expectError, expectResult, fail } from "../verdict.js";
import { ALLOW_LIST, ENV_RULE } from "./orch.js";

const CWD_RULE = securityModel(
  "Tool rules",
  "A per-call `cwd` is resolved with symlinks followed at launch and must remain an existing directory under the canonical workspace; `..`, absolute paths elsewhere, and links pointing outside are refused.",
);
const TAG_RULE = securityModel(
  "Delegated runs",
  "SCV tags each delegated process through its environment (`SCV_PARENT`, `SCV_DELEGATION_DEPTH`), records it under `$SCV_HOME/state/delegations` while it runs, stops its process group and tagged descendants when it ends, and has the daemon stop orphans whose owning SCV process died.",
);

/** Poll for a file a pane's program writes. */
async function fileFrom(path: string, what: string): Promise<string> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text.endsWith("\n")) return text;
    }
  }
  fail(`${what} never appeared`);
}

async function newPane(ctx: CheckContext, params: Record<string, unknown>) {
  const { client } = await ctx.session({ label: "panes" });
  return { client, reply: await client.request("pane/new", params) };
}

/** A node program, run inside a pane, that says hello, asks the daemon one request and writes the two replies. */
function askFromInside(socket: string, out: string, method: string, params?: object): string {
  return `
    const net = require("node:net"), fs = require("node:fs");
    const s = net.createConnection(${JSON.stringify(socket)});
    let buf = "";
    s.on("data", (d) => { buf += d; if (buf.split("\\n").length > 2) { fs.writeFileSync(${JSON.stringify(out)}, buf); process.exit(0); } });
    s.on("connect", () => {
      s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: ${JSON.stringify(PROTOCOL)}, client: { name: "in-pane", version: "0" } } }) + "\\n");
      s.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: ${JSON.stringify(method)}${params ? `, params: ${JSON.stringify(params)}` : ""} }) + "\\n");
    });`;
}

const OWNERSHIP_RULE = design(
  "Delegation across daemons",
  "a delegate sees and acts on only the panes and jobs of its own delegation subtree; the owner sees all.",
);

/** Start-up variables the check sets, each with a program that would obey it. */
const START_UP_PROBES: readonly (readonly [string, string[]])[] = [
  ["BASH_ENV", ["bash", "-c", "echo building"]],
  ["LD_PRELOAD", ["true"]],
];

const TRANSPARENT_RULE = securityModel(
  "Security Model",
  "It provides workspace path containment, bounded I/O, transparent side effects, and interactive approval.",
);

export const paneChecks: readonly Check[] = [
  {
    id: "panes/cwd-containment",
    level: "MUST",
    requirement: CWD_RULE,
    also: [
      design(
        "Containment (each app supplies its rules; the runtime supplies the mechanisms)",
        "cwd: resolved with symlinks followed at launch, must be an existing directory under the canonical workspace.",
      ),
    ],
    expected:
      "pane/new with a cwd outside the workspace, through a symlink leading out, or with `..` is refused with -32602 naming cwd; a cwd inside starts the pane",
    needsMethods: ["pane/new", "pane/kill"],
    async run(ctx) {
      const inside = ctx.dir("panes");
      const link = join(inside, `out-${nonce()}`);
      symlinkSync(ctx.run.outside, link);
      for (const cwd of [ctx.run.outside, link, join(inside, "..", "..", "..")]) {
        const { client, reply } = await newPane(ctx, { argv: ["true"], cwd });
        const error = expectError(reply, ErrorCode.InvalidParams, `pane/new with cwd ${cwd}`);
        expect(JSON.stringify(error.data).includes("cwd"), `the refusal does not name cwd (${JSON.stringify(error.data)})`);
        client.close();
      }
      const { client, reply } = await newPane(ctx, { argv: ["sleep", "30"], cwd: inside });
      const pane = expectResult(reply, PaneInfoSchema, "pane/new with a cwd inside the workspace");
      await client.request("pane/kill", { target: pane.id });
      return "outside, symlinked-out and .. cwds refused; inside accepted";
    },
  },
  {
    id: "panes/delegated-process",
    level: "MUST",
    requirement: TAG_RULE,
    also: [design("Identity", "So `env -i venom-mux stop` typed in a pane is still refused.")],
    expected: `a pane's program carries ${MARKER_PARENT} and ${MARKER_DEPTH}=1 and a delegation record exists while it runs; a program in a pane that clears its environment and asks for daemon/stop is a delegate and is refused with ${ErrorCode.OwnerRequired}`,
    needsMethods: ["pane/new", "pane/kill"],
    async run(ctx) {
      const dir = ctx.dir("panes");
      const envFile = join(dir, "env.txt");
      const { client, reply } = await newPane(ctx, { argv: ["sh", "-c", `env > ${envFile}; sleep 30`] });
      const pane = expectResult(reply, PaneInfoSchema, "pane/new");
      const env = await fileFrom(envFile, "the pane's environment");
      expect(new RegExp(`^${MARKER_DEPTH}=1$`, "m").test(env), `the pane's program lacks ${MARKER_DEPTH}=1`);
      expect(new RegExp(`^${MARKER_PARENT}=\\S+$`, "m").test(env), `the pane's program lacks ${MARKER_PARENT}`);
      if (ctx.target.home) {
        const records = join(ctx.target.home, "state", "delegations");
        const count = existsSync(records) ? readdirSync(records).filter((name) => name.endsWith(".json")).length : 0;
        expect(count > 0, `no delegation record in ${records} while the pane runs`);
      }
      const out = join(dir, "stop.txt");
      const inside = await newPane(ctx, {
        argv: ["env", "-i", process.execPath, "-e", askFromInside(ctx.target.socket, out, "daemon/stop")],
      });
      const insider = expectResult(inside.reply, PaneInfoSchema, "pane/new for the cleared-environment program");
      const [hello, stop] = (await fileFrom(out, "the in-pane client's replies"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(
        hello?.result?.principal?.kind === "delegate",
        `a program in a pane with env -i is "${hello?.result?.principal?.kind}", not a delegate`,
      );
      expect(
        stop?.error?.code === ErrorCode.OwnerRequired,
        `daemon/stop from inside a pane got ${JSON.stringify(stop?.error ?? stop?.result)}`,
      );
      await ctx.assertServing();
      await client.request("pane/kill", { target: pane.id });
      await inside.client.request("pane/kill", { target: insider.id });
      return `markers present; env -i program in a pane is a delegate (evidence ${JSON.stringify(hello.result.principal.evidence)}); its daemon/stop refused`;
    },
  },
  {
    id: "panes/ownership",
    level: "MUST",
    requirement: OWNERSHIP_RULE,
    expected: `a delegate of another delegation (markers naming a parent the daemon never made) does not see the owner's pane in pane/list, and its pane/send, pane/capture, pane/resize and pane/kill on it are refused; the owner still sees and drives it, and nothing was typed into it`,
    needsMethods: ["pane/new", "pane/list", "pane/send", "pane/capture", "pane/resize", "pane/kill"],
    async run(ctx) {
      const { client, reply } = await newPane(ctx, { argv: ["cat"] });
      const pane = expectResult(reply, PaneInfoSchema, "pane/new");
      const stranger = ctx.relay({ label: "stranger", env: { [MARKER_PARENT]: `conformance-${nonce()}/stranger`, [MARKER_DEPTH]: "1" } });
      expect((await stranger.connected) === "connected", "the delegate could not connect");
      const hello = await ctx.hello(stranger.client);
      expect(hello.principal.kind === "delegate", `a client with delegation markers is "${hello.principal.kind}", not a delegate`);
      const listed = await stranger.client.request("pane/list", {});
      const seen = JSON.stringify(listed.result ?? listed.error);
      expect(!seen.includes(pane.id), `the delegate's pane/list shows the owner's pane ${pane.id}: ${seen.slice(0, 300)}`);
      const typed = `typed-by-a-stranger-${nonce()}`;
      for (const [method, params] of [
        ["pane/send", { target: pane.id, data: `${typed}\r` }],
        ["pane/capture", { target: pane.id }],
        ["pane/resize", { target: pane.id, cols: 40, rows: 10 }],
        ["pane/kill", { target: pane.id }],
      ] as const) {
        const answer = await stranger.client.request(method, params);
        expect(
          answer.error !== undefined,
          `the delegate's ${method} on the owner's pane was carried out: ${String(JSON.stringify(answer.result)).slice(0, 200)}`,
        );
        ctx.see(`delegate ${method}`, `error ${answer.error.code}: ${answer.error.message}`);
      }
      const owned = expectResult(await client.request("pane/list", {}), PaneListResultSchema, "the owner's pane/list");
      const mine = owned.panes.find((p) => p.id === pane.id);
      expect(mine?.status === "running", "the owner's pane is gone or not running after the delegate's kill");
      expect(mine.cols !== 40 || mine.rows !== 10, "the delegate's resize reached the owner's pane");
      const screen = await client.request("pane/capture", { target: pane.id });
      expect(!JSON.stringify(screen.result ?? "").includes(typed), "the delegate's text reached the owner's pane");
      await client.request("pane/kill", { target: pane.id });
      return "the delegate saw no pane of the owner and was refused send, capture, resize and kill; the owner's pane is untouched";
    },
  },
  {
    id: "panes/start-up-env",
    level: "MUST",
    requirement: TRANSPARENT_RULE,
    also: [
      rfc0008("Secrets and sensitive data", "command argv or environment unless an explicit tool contract and policy allow it."),
      securityModel("Approval behavior", "An approval prompt includes the exact tool name and a bounded, human-readable summary."),
    ],
    expected: `pane/new whose env sets a loader or start-up variable (${START_UP_PROBES.map(([name]) => name).join(", ")}) is refused with ${ErrorCode.InvalidParams} naming it, and the file BASH_ENV names never runs: such a variable makes the program the caller named run code nobody was shown`,
    needsMethods: ["pane/new", "pane/kill"],
    async run(ctx) {
      const dir = ctx.dir("start-up-env");
      const ran = join(dir, `ran-${nonce()}`);
      const payload = join(dir, "payload.sh");
      writeFileSync(payload, `echo ran > ${ran}\n`);
      for (const [name, argv] of START_UP_PROBES) {
        const value = name === "BASH_ENV" ? payload : join(dir, "absent.so");
        const { client, reply } = await newPane(ctx, { argv, env: { [name]: value } });
        if (reply.error === undefined) {
          const pane = PaneInfoSchema.safeParse(reply.result);
          if (name === "BASH_ENV") await fileFrom(ran, "the file BASH_ENV names").catch(() => undefined);
          if (pane.success) await client.request("pane/kill", { target: pane.data.id });
        }
        expect(!existsSync(ran), "the file BASH_ENV names ran in the new pane");
        const error = expectError(reply, ErrorCode.InvalidParams, `pane/new with env.${name}`);
        expect(`${error.message} ${JSON.stringify(error.data)}`.includes(name), `the refusal does not name ${name}: ${error.message}`);
        client.close();
      }
      await ctx.assertServing();
      return `${START_UP_PROBES.map(([name]) => name).join(", ")} refused, naming each; nothing ran`;
    },
  },
  {
    id: "panes/delegate-env",
    level: "MUST",
    requirement: ENV_RULE,
    also: [ALLOW_LIST],
    expected:
      "a pane made by a delegate (a program in an agent's pane asking pane/new with no envPolicy, its approval granted by the owner) never sees the canary secret of the daemon's environment. Without a known canary (--canary, or --target) this is a warning",
    needsMethods: ["pane/new", "pane/kill"],
    async run(ctx) {
      const canary = ctx.target.canary;
      if (!canary) {
        ctx.should(false, "no canary known: start the daemon with a secret in its environment and pass it as --canary, or use --target");
        return "nothing to look for";
      }
      const dir = ctx.dir("delegate-env");
      const envFile = join(dir, "env.txt");
      const out = join(dir, "replies.txt");
      const inner = { argv: ["sh", "-c", `env > ${envFile}; sleep 30`] };
      const { client, reply } = await newPane(ctx, {
        argv: [process.execPath, "-e", askFromInside(ctx.target.socket, out, "pane/new", inner)],
        envPolicy: "delegated",
      });
      const agent = expectResult(reply, PaneInfoSchema, "pane/new for the agent");
      const [, made] = (await fileFrom(out, "the in-pane client's replies"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const pane = expectResult(made ?? {}, PaneInfoSchema, "the delegate's approved pane/new");
      const env = await fileFrom(envFile, "the delegate's pane's environment");
      await client.request("pane/kill", { target: pane.id });
      await client.request("pane/kill", { target: agent.id });
      expect(!env.includes(canary), "the daemon's canary secret reached the pane a delegate made");
      return "the delegate's pane started without the daemon's canary";
    },
  },
];
