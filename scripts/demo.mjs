// The main job, end to end: venom-echo, venom-mux and venom-orch in a temporary
// home; shipped local demo agents (no network, no model) run in venom-mux panes.
// One writes a file through venom-echo and waits for your approval, one tries
// to read outside the workspace, one tries `venom-mux stop` from its pane, one
// delegates to a nested agent through a nested venom-orch, one speaks ACP (its
// permission requests come to you), and one confined by its own
// `[agents.NAME] sandbox` (Landlock) tries to write outside the workspace and
// read a key in your home (a stand-in home: the demo never touches yours), and
// is refused by the kernel. Without a terminal
// the demo answers the approvals itself and prints what was asked and answered;
// on a terminal it asks you.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { terminalGate, VenomClient } from "@venom/runtime/cli";

const bin = (app) => fileURLToPath(new URL(`../apps/${app}/dist/main.cjs`, import.meta.url));
const BINS = { echo: bin("venom-echo"), mux: bin("multiplexer-lite"), orch: bin("orchestrator-lite") };
const agent = fileURLToPath(new URL("../apps/orchestrator-lite/agents/demo-agent.mjs", import.meta.url));
const acpAgent = fileURLToPath(new URL("../apps/orchestrator-lite/agents/acp-agent.mjs", import.meta.url));

const root = mkdtempSync(join(tmpdir(), "venom-demo-"));
const home = join(root, "home");
const workspace = join(root, "workspace");
mkdirSync(home, { mode: 0o700 });
mkdirSync(workspace);
// The person's home as the daemons see it (HOME), with a key in it: a stand-in, so the demo reads nothing of yours.
const you = join(root, "you");
mkdirSync(join(you, ".ssh"), { recursive: true, mode: 0o700 });
const key = join(you, ".ssh", "id_demo");
writeFileSync(key, "DEMO-PRIVATE-KEY\n", { mode: 0o600 });
const outside = join(root, "outside.txt");
// The confined agent: a shell that tries to read $1 (the key) and write $2 (its prompt, a path outside the workspace).
const TRESPASS = 'cat "$1" && echo "read $1"; echo "an agent was here" > "$2" && echo "wrote $2"; exit 0';
writeFileSync(
  join(home, "config.toml"),
  [
    ...["writer", "reader", "stopper"].map((name) => `[agents.${name}]\nexecutable = "${agent}"\n`),
    // The nested venom-orch hands its prompt to the writer.
    `[agents.venom]\nargs = ["run", "writer", "--"]\n`,
    // An agent that speaks the Agent Client Protocol: its permission requests come to you, its fs/terminal requests are refused.
    `[agents.acp-demo]\nexecutable = "${acpAgent}"\nacp = true\n`,
    // Confined by its own sandbox while [sandbox] stays off for the others.
    `[agents.boxed]\nexecutable = "/bin/sh"\nargs = ${JSON.stringify(["-c", TRESPASS, "boxed", key])}\nsandbox = "landlock"\n`,
  ].join("\n"),
);
const env = { ...process.env, VENOM_HOME: home, HOME: you };
const interactive = process.stdin.isTTY && process.stderr.isTTY;

function daemon(app, ...args) {
  execFileSync(process.execPath, [BINS[app], ...args], { env, stdio: ["ignore", "ignore", "inherit"] });
}

/** The person: on a terminal, you (y/N); otherwise the demo approves and says so. */
const ask = interactive
  ? terminalGate("venom-demo")
  : async (request) => {
      console.log(`  ? approval asked: ${request.label} ${request.tool} (${request.risk})`);
      for (const line of request.summary.split("\n")) console.log(`      ${line}`);
      console.log("    -> the demo answers: approve");
      return "approve";
    };

async function run(title, name, prompt) {
  console.log(`\n# ${title}`);
  console.log(`$ venom-orch run ${name} '${prompt}'`);
  if (interactive) console.log(`  (watch it: VENOM_HOME=${home} pnpm exec venom-orch attach ${name}-1)`);
  const client = await VenomClient.connect(join(home, "state", "orch.sock"), {
    client: { name: "venom-demo", version: "1" },
    gate: ask,
    onEvent: (method, params) => {
      if (method === "event/agent") console.log(`  . ${params.name} ${params.state}${params.detail ? ` ${params.detail}` : ""}`);
    },
  });
  try {
    const result = await client.callTool("agent", { agent: name, prompt });
    console.log(`  = ${result.status}`);
    for (const line of result.content.trimEnd().split("\n")) console.log(`    | ${line}`);
  } finally {
    client.close();
  }
}

try {
  console.log(`Venom demo in ${root}${interactive ? "" : " (no terminal: the demo answers approvals and shows them)"}`);
  daemon("echo", "start", "--workspace", workspace);
  daemon("mux", "start", "--workspace", workspace);
  daemon("orch", "start", "--workspace", workspace);
  console.log("three daemons started: venom-echo, venom-mux, venom-orch");

  await run("an agent writes a file through venom-echo: the approval comes back to you", "writer", "write notes.txt hello from an agent");
  console.log(
    `  notes.txt now holds: ${existsSync(join(workspace, "notes.txt")) ? readFileSync(join(workspace, "notes.txt"), "utf8") : "(nothing)"}`,
  );
  await run("an agent tries to read outside the workspace: refused", "reader", "read ../../etc/passwd");
  await run("an agent tries to stop venom-mux from its pane: refused (it is a delegate)", "stopper", "mux-stop");
  await run(
    "an agent delegates to a nested agent through a nested venom-orch: both approvals come back to you with the chain",
    "venom",
    "write nested.txt hello from a nested agent",
  );
  console.log(
    `  nested.txt now holds: ${existsSync(join(workspace, "nested.txt")) ? readFileSync(join(workspace, "nested.txt"), "utf8") : "(nothing)"}`,
  );
  await run(
    "an ACP agent: a plain read runs, an edit asks you (allow once, never always), its request to read a file through venom-orch is refused",
    "acp-demo",
    "tool read README.md\ntool edit notes.txt\nask-client fs/read_text_file",
  );
  await run(
    `an agent confined by its own [agents.boxed] sandbox (Landlock) tries to read ${key} and write outside the workspace: the kernel refuses both`,
    "boxed",
    outside,
  );
  console.log(`  ${outside} ${existsSync(outside) ? "EXISTS: the write got through" : "does not exist: nothing was written"}`);
} finally {
  // Never leave a daemon behind, even if a step above failed.
  for (const app of ["orch", "mux", "echo"]) {
    if (existsSync(join(home, "state", `${app}.sock`))) {
      try {
        daemon(app, "stop");
      } catch {}
    }
  }
  console.log("\ndaemons stopped");
  rmSync(root, { recursive: true, force: true });
}
