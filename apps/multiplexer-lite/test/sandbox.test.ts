import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanupAll, cli, connect, startDaemon, startEcho, startMux, tempDir } from "@venom/testkit";
import { ASK, DETACH } from "@venom/testkit/escape";
import { afterAll, describe, expect, it } from "vitest";

const WITHOUT_LANDLOCK = createRequire(import.meta.url).resolve("@venom/testkit/without-landlock.mjs");
const MUX_MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

afterAll(cleanupAll);

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

  it("[agents.NAME] sandbox confines that agent's panes while [sandbox] is off: hello says so, other panes stay unconfined unless narrowed by confinedAs", async () => {
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
      // Any caller may narrow a pane to a recorded delegation's confinement (what venom-orch does for a confined delegate)…
      const records = join(mux.home, "state", "delegations");
      const record = readdirSync(records)
        .map((name) => JSON.parse(readFileSync(join(records, name), "utf8")))
        .find((r) => r.pid === agent.pid);
      const narrowed = await client.request("pane/new", {
        argv: ["bash", "--norc", "--noprofile", "-c", `${probe("narrowed")}; sleep 300`],
        confinedAs: record.id,
      });
      await expect.poll(() => screen(narrowed.id), { timeout: 30_000 }).toMatch(/narrowed-DONE/);
      expect(await screen(narrowed.id)).toMatch(/narrowed: Permission denied/);
      expect(await screen(narrowed.id)).not.toContain("PRIVATE-KEY-CANARY");
      expect(existsSync(join(outside, "narrowed"))).toBe(false);
      // …and naming a record that is not there starts nothing.
      const before = (await client.request("pane/list", {})).panes.length;
      await expect(client.request("pane/new", { argv: ["true"], confinedAs: "mux-gone-1" })).rejects.toThrow(
        /invalid params: confinedAs: no delegation record "mux-gone-1"/,
      );
      expect((await client.request("pane/list", {})).panes.length).toBe(before);
      client.close();
    } finally {
      await mux.stop();
    }
  });

  it("writableOnly narrows a confined pane to the paths it names and grants nothing beyond its confinement; an unconfined pane stays unconfined", async () => {
    const outside = tempDir("outside");
    const mux = await startMux({ config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n' });
    try {
      const client = await connect(mux);
      mkdirSync(join(mux.workspace, "sub"));
      const probe = (name: string) =>
        `echo x > sub/${name}; echo x > ${name}-top || echo ${name}-TOP-REFUSED; echo x > ${outside}/${name} || echo ${name}-OUTSIDE-REFUSED; echo ${name}-DONE; sleep 300`;
      const writableOnly = [join(mux.workspace, "sub"), outside];
      const agent = await client.request("pane/new", {
        argv: ["bash", "--norc", "--noprofile", "-c", probe("agent")],
        envPolicy: "delegated",
        agent: "boxed",
        writableOnly,
      });
      const plain = await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile", "-c", probe("plain")], writableOnly });
      const screen = async (id: string) => (await client.request("pane/capture", { target: id, join: true })).text;
      await expect.poll(() => screen(agent.id), { timeout: 30_000 }).toMatch(/agent-DONE/);
      await expect.poll(() => screen(plain.id), { timeout: 30_000 }).toMatch(/plain-DONE/);
      // The agent's sandbox lets it write the workspace: the layer narrows that to sub/, and naming a path outside adds nothing.
      expect(await screen(agent.id)).toMatch(/agent-TOP-REFUSED[\s\S]*agent-OUTSIDE-REFUSED/);
      expect(existsSync(join(mux.workspace, "sub", "agent"))).toBe(true);
      expect(existsSync(join(outside, "agent"))).toBe(false);
      // Nothing confines a plain pane here, and writableOnly does not start to.
      expect(await screen(plain.id)).not.toMatch(/REFUSED/);
      expect(existsSync(join(mux.workspace, "plain-top"))).toBe(true);
      // A path that is not there starts nothing.
      const before = (await client.request("pane/list", {})).panes.length;
      await expect(
        client.request("pane/new", { argv: ["true"], envPolicy: "delegated", agent: "boxed", writableOnly: [join(mux.workspace, "gone")] }),
      ).rejects.toThrow(/writableOnly: ".*gone" is not an existing absolute path; nothing was started/);
      expect((await client.request("pane/list", {})).panes.length).toBe(before);
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

  it("no process is confined where it could rewrite its own confinement: a VENOM_HOME inside the workspace refuses the launch", async () => {
    const outside = tempDir("outside");
    const workspace = tempDir("ws");
    const home = join(workspace, "venom-home");
    mkdirSync(home, { mode: 0o700 });
    const mux = await startMux({ home, workspace, config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n' });
    writeFileSync(join(workspace, "ask.cjs"), ASK);
    // The agent drops the layers from every delegation record it can write, then asks for a pane as if it were unconfined.
    const unconfine =
      'const fs = require("node:fs"); const d = process.env.VENOM_HOME + "/state/delegations";' +
      'for (const f of fs.readdirSync(d)) { const r = JSON.parse(fs.readFileSync(d + "/" + f)); r.sandbox = []; fs.writeFileSync(d + "/" + f, JSON.stringify(r)); }';
    const owner = await connect(mux, { gate: async () => "approve" as const });
    try {
      // Said before any launch: hello and status carry it.
      const notice = /every confined launch is refused: the delegation records \(.*\) lie in .*, which a confined process could write/;
      expect(owner.hello.notices?.some((n) => notice.test(n))).toBe(true);
      expect(cli(mux, ["status"]).stdout).toMatch(notice);
      const attempt = owner.request("pane/new", {
        argv: [
          "bash",
          "--norc",
          "--noprofile",
          "-c",
          `${process.execPath} -e '${unconfine}'; ${process.execPath} ask.cjs ${mux.socket} pane/new '${JSON.stringify({ name: "free", argv: ["sh", "-c", `echo x > ${outside}/by-pane`] })}'; sleep 300`,
        ],
        envPolicy: "delegated",
        agent: "boxed",
      });
      await expect(attempt).rejects.toThrow(/delegation records .* could write/);
      expect((await owner.request("pane/list", {})).panes).toEqual([]);
      expect(existsSync(join(outside, "by-pane"))).toBe(false);
    } finally {
      owner.close();
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
      // VENOM_HOME lies outside the workspace: no launch is refused for the records.
      expect(owner.hello.notices?.some((n) => n.startsWith("every confined launch is refused"))).toBe(false);
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
      expect(await screen(agent.id)).toMatch(
        /NOTICE you run under no_new_privs.*: Venom does nothing for you: no tool, no pane, no management/,
      );
      expect((await owner.request("pane/list", {})).panes.map((pane: { name: string }) => pane.name)).not.toContain("detached");
      expect(existsSync(join(outside, "by-detached"))).toBe(false);
    } finally {
      owner.close();
      await echo.stop();
      await mux.stop();
    }
  });

  it("a confined pane cannot reach another terminal: it neither writes to nor reads the owner's pane by its /dev/pts path", async () => {
    const mux = await startMux({ config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n' });
    const client = await connect(mux);
    try {
      const screen = async (id: string) => (await client.request("pane/capture", { target: id, join: true })).text;
      const owners = await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile", "-c", "tty; sleep 300"] });
      await expect.poll(() => screen(owners.id), { timeout: 30_000 }).toMatch(/\/dev\/pts\/\d+/);
      const tty = (await screen(owners.id)).match(/\/dev\/pts\/\d+/)?.[0] as string;
      const agent = await client.request("pane/new", {
        argv: ["sh", "-c", `echo INJECTED > ${tty}; timeout 1 cat ${tty}; echo OWN-TERMINAL > /dev/tty; echo PROBED; sleep 300`],
        envPolicy: "delegated",
        agent: "boxed",
      });
      await expect.poll(() => screen(agent.id), { timeout: 30_000 }).toMatch(/PROBED/);
      expect((await screen(agent.id)).match(/Permission denied/g)).toHaveLength(2);
      expect(await screen(owners.id)).not.toContain("INJECTED");
      // Its own terminal it keeps: the descriptors it was given, and /dev/tty.
      expect(await screen(agent.id)).toContain("OWN-TERMINAL");
    } finally {
      client.close();
      await mux.stop();
    }
  });

  it("the approval a delegate's new pane asks for shows the command's tail and quotes its directory", async () => {
    const mux = await startMux();
    writeFileSync(join(mux.workspace, "ask.cjs"), ASK);
    const asked: string[] = [];
    const owner = await connect(mux, {
      gate: async (request) => {
        asked.push(request.summary);
        return "deny";
      },
    });
    try {
      // Padding that pushed the rest of the command past the shown length, and a directory whose name draws a line of its own.
      const argv = ["sh", "-c", `make test${" ".repeat(1200)}; touch HIDDEN-TAIL`];
      const cwd = join(mux.workspace, "d\nnew pane harmless: make test");
      mkdirSync(cwd);
      const params = { name: "x", argv, cwd };
      const ask = `${process.execPath} ask.cjs ${mux.socket} pane/new '${JSON.stringify(params)}'`;
      const agent = await owner.request("pane/new", { argv: ["sh", "-c", `${ask}; echo AGENT-DONE; sleep 300`], envPolicy: "delegated" });
      const screen = async () => (await owner.request("pane/capture", { target: agent.id, join: true })).text;
      await expect.poll(screen, { timeout: 30_000 }).toMatch(/AGENT-DONE/);
      expect(await screen()).toMatch(/ANSWER "refused/);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(
        /^new pane x, env delegated \(agent pane\): "sh" "-c" "make test .*characters cut.*; touch HIDDEN-TAIL" in ".*\/d\\nnew pane harmless: make test"$/,
      );
      expect(existsSync(join(mux.workspace, "HIDDEN-TAIL"))).toBe(false);
    } finally {
      owner.close();
      await mux.stop();
    }
  });

  it("a symlink a confined agent plants in its home is never followed by venom-mux: its next pane is refused naming it, nothing is made where it leads", async () => {
    const outside = tempDir("outside");
    mkdirSync(join(outside, "share"), { mode: 0o755 });
    chmodSync(join(outside, "share"), 0o755);
    const mux = await startMux({ config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n' });
    try {
      const agent = ["new", "-d", "--delegated", "--agent", "boxed"];
      // It cannot write outside itself, but the daemon makes its XDG directories (.local/share, .local/state) for the next pane.
      const plant = `mkdir ${outside}/state; rm -rf "$HOME/.local" && ln -s ${outside} "$HOME/.local" && echo PLANTED`;
      expect(cli(mux, [...agent, "-n", "planter", "--", "sh", "-c", `${plant}; sleep 300`]).code).toBe(0);
      await expect.poll(() => cli(mux, ["capture", "-t", "planter", "-J"]).stdout, { timeout: 30_000 }).toMatch(/PLANTED/);
      expect(cli(mux, ["capture", "-t", "planter", "-J"]).stdout).toMatch(/state.*Permission denied/);
      const next = cli(mux, [...agent, "-n", "next", "--", "true"]);
      expect(next.code).toBe(1);
      expect(next.stderr).toContain(`${join(mux.home, "agents", "boxed", ".local")}: refused: it is a symlink or not a directory`);
      expect(existsSync(join(outside, "state"))).toBe(false);
      expect(statSync(join(outside, "share")).mode & 0o777).toBe(0o755);
    } finally {
      await mux.stop();
    }
  });

  it("an agent that swaps its temp dir for a symlink gets no rights to where it leads: the pane it asks for is refused naming the link", async () => {
    const home = tempDir("real-home");
    writeFileSync(join(home, "secret"), "PRIVATE-KEY-CANARY\n");
    const mux = await startMux({ config: '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = "landlock"\n', env: { HOME: home } });
    writeFileSync(join(mux.workspace, "ask.cjs"), ASK);
    const owner = await connect(mux, { gate: async () => "approve" as const });
    try {
      // $TMPDIR lies in the agent's private home, which it may write: it can put a symlink there. Its recorded
      // layer named $TMPDIR, and a launcher that opened that path again would grant the layer's rights to the link's target.
      const breakOut = `cat ${home}/secret; echo x > ${home}/planted; echo PANE-DONE; sleep 300`;
      const ask = `${process.execPath} ask.cjs ${mux.socket} pane/new '${JSON.stringify({ name: "spawned", argv: ["sh", "-c", breakOut] })}'`;
      const agent = await owner.request("pane/new", {
        argv: ["bash", "--norc", "--noprofile", "-c", `rm -rf "$TMPDIR" && ln -s ${home} "$TMPDIR" && ${ask}; echo AGENT-DONE; sleep 300`],
        envPolicy: "delegated",
        agent: "boxed",
      });
      const screen = async (target: string) => (await owner.request("pane/capture", { target, join: true })).text;
      await expect.poll(() => screen(agent.id), { timeout: 60_000 }).toMatch(/AGENT-DONE/);
      // Its pane is its own agent's, in that same home (docs/security-model.md, "A delegate's new pane"): the link is refused there.
      expect(await screen(agent.id)).toContain(`ANSWER "${join(mux.home, "agents", "boxed", "tmp")}: refused: it is a symlink`);
      expect((await owner.request("pane/list", {})).panes.map((p) => p.name)).not.toContain("spawned");
      expect(existsSync(join(home, "planted"))).toBe(false);
    } finally {
      owner.close();
      await mux.stop();
    }
  });
});
