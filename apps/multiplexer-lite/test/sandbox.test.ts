import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanupAll, cli, connect, startDaemon, startEcho, startMux, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

const WITHOUT_LANDLOCK = createRequire(import.meta.url).resolve("@venom/testkit/without-landlock.mjs");
const MUX_MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

afterAll(cleanupAll);

/**
 * What a confined agent runs to get work done outside its sandbox: a raw
 * venom/1 client (node builtins only: the repo is not readable in there) that
 * asks a daemon's socket for one request after hello and prints the answer.
 */
const ASK = `
const [socket, method, params] = process.argv.slice(2);
const s = require("node:net").createConnection(socket);
const send = (id, method, params) => s.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\\n");
let buffer = "";
s.on("connect", () => send(1, "hello", { protocol: "venom/1", client: { name: "escape", version: "0" } }));
s.on("data", (d) => {
  buffer += d;
  for (let nl = buffer.indexOf("\\n"); nl !== -1; nl = buffer.indexOf("\\n")) {
    const msg = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (msg.id === 1) {
      // What hello tells this caller about its confinement (the notices name it, or say nothing will be started for it).
      for (const notice of msg.result.notices) if (/your delegation is confined|starts no process for you/.test(notice)) console.log("NOTICE", notice);
      send(2, method, JSON.parse(params));
    }
    if (msg.id === 2) {
      console.log("ANSWER", JSON.stringify(msg.error ? msg.error.message : msg.result.id ?? msg.result.content));
      s.end();
    }
  }
});
`;

/**
 * Runs "$@" outside the pane's process tree and environment: a double fork
 * (the orphan is re-parented to the daemon, a child subreaper, once its parent
 * exits; it waits until its parent is no longer the subshell of this script's
 * shell, passed as $0) and env -i, so neither ancestry nor markers lead back
 * to a record.
 */
const DETACH = `( sh -c 'while [ "$(grep ^PPid: /proc/$(grep ^PPid: /proc/$$/status | cut -f2)/status | cut -f2)" = "$0" ]; do sleep 0.1; done; exec env -i "$@"' "$$" "$@" & )
`;

describe('panes under [sandbox] mode = "landlock" (docs/security-model.md, Confinement)', () => {
  it("a pane is confined like a run: no write outside the workspace, no read of the real home, no signal out; its pid is the program's", async () => {
    const home = tempDir("real-home");
    writeFileSync(join(home, "secret"), "PRIVATE-KEY-CANARY\n");
    const outside = tempDir("outside");
    const victim = spawn("sleep", ["300"], { stdio: "ignore" });
    const mux = await startMux({ config: '[sandbox]\nmode = "landlock"\n', env: { HOME: home } });
    try {
      const client = await connect(mux);
      expect(client.hello.notices.join("\n")).toMatch(/sandbox active \(Landlock ABI \d+\)/);
      client.close();
      expect(cli(mux, ["new", "-d", "-n", "boxed", "--", "bash", "--norc", "--noprofile"]).code).toBe(0);
      const pid = JSON.parse(cli(mux, ["ls", "--json"]).stdout)[0].pid as number;
      const probe = [
        `echo x > ${outside}/escaped`,
        `cat ${home}/secret`,
        `kill -TERM ${victim.pid}`,
        "echo > inside",
        'echo "HOME=$HOME PID=$$ DONE"',
      ].join("; ");
      expect(cli(mux, ["send", "-t", "boxed", probe, "Enter"]).code).toBe(0);
      await expect.poll(() => cli(mux, ["capture", "-t", "boxed", "-J"]).stdout, { timeout: 30_000 }).toMatch(/PID=\d+ DONE/);
      const screen = cli(mux, ["capture", "-t", "boxed", "-J"]).stdout;
      expect(screen).toMatch(/escaped: Permission denied/);
      expect(screen).toMatch(/secret: Permission denied/);
      expect(screen).toMatch(/kill: \(\d+\) - Operation not permitted/);
      expect(screen).not.toContain("PRIVATE-KEY-CANARY");
      expect(screen).toContain(`HOME=${join(mux.home, "agents", "pane")} PID=${pid} DONE`);
      expect(existsSync(join(outside, "escaped"))).toBe(false);
      expect(existsSync(join(mux.workspace, "inside"))).toBe(true);
      expect(victim.exitCode).toBeNull();
      // What ls reports is the program as given, not the launcher.
      expect(cli(mux, ["ls"]).stdout).toMatch(/^%0 boxed: bash --norc --noprofile /);
    } finally {
      victim.kill("SIGKILL");
      await mux.stop();
    }
  });

  it("[agents.NAME] sandbox confines that agent's panes while [sandbox] is off: hello says so, other panes stay unconfined", async () => {
    const home = tempDir("real-home");
    writeFileSync(join(home, "secret"), "PRIVATE-KEY-CANARY\n");
    const outside = tempDir("outside");
    const mux = await startMux({
      config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock", network = "none" }\n',
      env: { HOME: home },
    });
    try {
      const client = await connect(mux);
      const notices = client.hello.notices.join("\n");
      expect(notices).toMatch(/no sandbox is active/);
      expect(notices).toMatch(
        /agent boxed \(\[agents\.boxed\] sandbox\): sandbox active \(Landlock ABI \d+\).*network: TCP bind and connect refused/,
      );
      const probe = (name: string) => `echo x > ${outside}/${name}; cat ${home}/secret; echo ${name}-DONE`;
      const agent = await client.request("pane/new", {
        argv: ["bash", "--norc", "--noprofile", "-c", `${probe("agent")}; sleep 300`],
        envPolicy: "delegated",
        agent: "boxed",
      });
      const plain = await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile", "-c", `${probe("plain")}; sleep 300`] });
      const screen = async (id: string) => (await client.request("pane/capture", { target: id, join: true })).text;
      await expect.poll(() => screen(agent.id), { timeout: 30_000 }).toMatch(/agent-DONE/);
      await expect.poll(() => screen(plain.id), { timeout: 30_000 }).toMatch(/plain-DONE/);
      expect(await screen(agent.id)).toMatch(/agent: Permission denied/);
      expect(await screen(agent.id)).toMatch(/secret: Permission denied/);
      expect(await screen(agent.id)).not.toContain("PRIVATE-KEY-CANARY");
      expect(existsSync(join(outside, "agent"))).toBe(false);
      // The same program in a pane of no agent runs as you, as [sandbox] mode = "off" says.
      expect(await screen(plain.id)).toContain("PRIVATE-KEY-CANARY");
      expect(existsSync(join(outside, "plain"))).toBe(true);
      client.close();
    } finally {
      await mux.stop();
    }
  });

  it("a project cannot widen the writable paths of its panes: new panes are refused, naming the file and key", async () => {
    const mux = await startMux({ config: '[sandbox]\nmode = "landlock"\n' });
    mkdirSync(join(mux.workspace, ".venom"));
    const project = join(mux.workspace, ".venom", "config.toml");
    writeFileSync(project, '[sandbox]\nwritable = ["/"]\n');
    // The session keeps its handshake (status, ls, kill keep working) but starts no pane, naming the file and key.
    const client = await connect(mux);
    await expect(client.request("pane/new", { argv: ["true"] })).rejects.toThrow(
      `${project}: key sandbox.writable: "/" is not in your configuration's sandbox.writable`,
    );
    client.close();
    await mux.stop();
  });

  it("fails closed: on a kernel without Landlock pane/new is refused naming the reason, and no pane starts", async () => {
    const mux = await startDaemon(WITHOUT_LANDLOCK, "mux", {
      config: '[sandbox]\nmode = "landlock"\n',
      env: { WITHOUT_LANDLOCK_SCRIPT: MUX_MAIN },
    });
    try {
      const created = cli(mux, ["new", "-d", "-n", "boxed", "--", "touch", "ran"]);
      expect(created.code).toBe(1);
      expect(created.stderr).toMatch(/refused: sandbox.mode is "landlock" but this kernel has no Landlock .*; nothing was started/);
      expect(JSON.parse(cli(mux, ["ls", "--json"]).stdout)).toEqual([]);
      expect(existsSync(join(mux.workspace, "ran"))).toBe(false);
    } finally {
      await mux.stop();
    }
  });

  it("an agent confined only by its own [agents.NAME] sandbox gets no unconfined pane or run by asking venom-mux or venom-echo", async () => {
    const home = tempDir("real-home");
    writeFileSync(join(home, "secret"), "PRIVATE-KEY-CANARY\n");
    const outside = tempDir("outside");
    const config = '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n';
    const mux = await startMux({ config, env: { HOME: home } });
    const echo = await startEcho({ config, home: mux.home, workspace: mux.workspace, env: { HOME: home } });
    writeFileSync(join(mux.workspace, "ask.cjs"), ASK);
    writeFileSync(join(mux.workspace, "detach.sh"), DETACH);
    // The person approves whatever the agent's delegation asks (the relay brings it here): only confinement stands in the way.
    const owner = await connect(mux, { gate: async () => "approve" as const });
    try {
      const breakOut = (name: string) => `echo HOME=$HOME; echo x > ${outside}/${name}; cat ${home}/secret; sleep 300`;
      const ask = (socket: string, method: string, params: unknown) =>
        `${process.execPath} ask.cjs ${socket} ${method} '${JSON.stringify(params)}'`;
      const agent = await owner.request("pane/new", {
        argv: [
          "bash",
          "--norc",
          "--noprofile",
          "-c",
          [
            ask(mux.socket, "pane/new", { name: "spawned", argv: ["sh", "-c", breakOut("by-pane")] }),
            ask(echo.socket, "tools/call", { name: "run", arguments: { command: breakOut("by-run").replace("sleep 300", "exit 0") } }),
            `sh detach.sh ${ask(mux.socket, "pane/new", { name: "detached", argv: ["sh", "-c", breakOut("by-detached")] })}`,
            "echo AGENT-DONE",
            "sleep 300",
          ].join("; "),
        ],
        envPolicy: "delegated",
        agent: "boxed",
      });
      const screen = async (target: string) => (await owner.request("pane/capture", { target, join: true })).text;
      await expect.poll(() => screen(agent.id), { timeout: 60_000 }).toMatch(/AGENT-DONE/);
      // The pane it asked for started (the person approved it), and is confined as the agent is.
      expect(await screen(agent.id)).toMatch(/ANSWER "%\d+"/);
      // Hello said so: what it asks Venom to start runs confined as it is.
      expect(await screen(agent.id)).toMatch(/NOTICE your delegation is confined \(1 Landlock layer\)/);
      await expect.poll(() => screen("spawned"), { timeout: 30_000 }).toMatch(/secret: Permission denied/);
      expect(await screen("spawned")).toMatch(/by-pane: Permission denied/);
      expect(await screen("spawned")).not.toContain("PRIVATE-KEY-CANARY");
      // It lives in the agent's private home, the one directory of its own the agent's sandbox lets it write.
      expect(await screen("spawned")).toContain(`HOME=${join(mux.home, "agents", "boxed")}`);
      expect(existsSync(join(outside, "by-pane"))).toBe(false);
      // The run it asked venom-echo for is confined too.
      expect(await screen(agent.id)).toMatch(/ANSWER ".*by-run: Permission denied.*secret: Permission denied/);
      expect(await screen(agent.id)).not.toContain("PRIVATE-KEY-CANARY");
      expect(existsSync(join(outside, "by-run"))).toBe(false);
      // Out of its process tree and environment it is known by nothing but no_new_privs, which every confined process keeps:
      // its confinement cannot be known, so nothing is started for it.
      await expect.poll(() => screen(agent.id), { timeout: 30_000 }).toMatch(/ANSWER "refused: you run under no_new_privs/);
      expect(await screen(agent.id)).toMatch(/NOTICE you run under no_new_privs.*: Venom starts no process for you/);
      expect((await owner.request("pane/list", {})).panes.map((pane: { name: string }) => pane.name)).not.toContain("detached");
      expect(existsSync(join(outside, "by-detached"))).toBe(false);
    } finally {
      owner.close();
      await echo.stop();
      await mux.stop();
    }
  });
});
