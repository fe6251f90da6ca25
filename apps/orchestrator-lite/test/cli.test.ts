import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isGone, processStat } from "@venom/runtime";
import { bashComplete, cleanupAll, cli, MUX_BIN, ORCH_BIN, startOrch, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";
import { ACP_AGENT, attachSeesThenDetaches, DEMO_AGENT, startStack } from "./stack.js";

afterAll(cleanupAll);

function readIfThere(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

describe("venom-orch CLI", () => {
  it("--help names every command and says plainly that no sandbox is active", () => {
    const help = cli({ env: process.env, bin: ORCH_BIN }, ["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["run", "jobs", "cancel", "attach", "agents", "serve", "start", "stop", "status", "restart"]) {
      expect(help.stdout).toMatch(new RegExp(`^  venom-orch ${command} `, "m"));
    }
    expect(help.stdout).toMatch(/no sandbox is active/i);
    expect(help.stdout).toMatch(/cooperative/);
  });

  it("run: progress on stderr, the result on stdout, exit codes like the other binaries", async () => {
    const stack = await startStack({ config: `[agents.venom]\nargs = ["run", "demo", "--"]\n[agent]\nmax_delegation_depth = 1\n` });
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    const ok = cli(orch, ["run", "demo", "hello world", "--yes"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("demo-1: done (exit 0)\ndemo agent: got a prompt of 11 characters\n");
    // A quick agent may end before venom-orch has seen it running (its job goes from starting to its end; on a
    // loaded machine it did): "running" is optional here, and required of the agent that sleeps below.
    const lines = (stderr: string) => stderr.split("\n").filter(Boolean);
    expect(lines(ok.stderr).filter((line) => line !== "venom-orch: demo-1 running")).toEqual([
      "venom-orch: demo-1 starting",
      "venom-orch: demo-1 done exit 0",
    ]);
    const failed = cli(orch, ["run", "demo", "exit 7", "--yes"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^demo-2: failed \(exit 7\)/);
    // Without a terminal and without --yes nobody can approve the launch.
    const denied = cli(orch, ["run", "demo", "hello"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/denied: agent needs approval and no one can be asked/);
    // What --yes approved without asking anyone is still said, as a question would have been.
    const approved = cli(orch, ["run", "demo", "write yes.txt hi", "--yes"]);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toMatch(
      /^venom-orch: demo-3 (starting|running) \[echo via demo-3 depth 1\] write approved without asking \(autoApprove\)$/m,
    );
    const json = JSON.parse(cli(orch, ["run", "demo", "hi", "--yes", "--json"]).stdout);
    expect(json).toMatchObject({ status: "ok", data: { name: "demo-4", result: "ok", exitCode: 0 } });
    expect(lines(cli(orch, ["run", "demo", "sleep 1", "--yes"]).stderr)).toEqual([
      "venom-orch: demo-5 starting",
      "venom-orch: demo-5 running",
      "venom-orch: demo-5 done exit 0",
    ]);
    // A launch inside a delegation past the depth limit is refused: exit 3, as every refusal.
    const nested = cli(orch, ["run", "demo", "hi"], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "x/y" });
    expect(nested.code).toBe(3);
    expect(nested.stderr).toMatch(/refused: demo would run at delegation depth 2, over the limit of 1/);
    expect(cli(orch, ["run", "demo"]).code).toBe(2);
    const empty = cli(orch, ["run", "demo", "", "--yes"]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/the prompt is empty/);
    expect(cli({ env: { ...orch.env, VENOM_HOME: tempDir("none") }, bin: ORCH_BIN }, ["jobs"]).code).toBe(4);
  });

  it("run with no daemon in the home starts venom-orch (and it venom-mux) for the repository it runs in, as tmux new starts its server", () => {
    const home = tempDir("home");
    writeFileSync(join(home, "config.toml"), `[agents.demo]\nexecutable = "${DEMO_AGENT}"\n`);
    const repo = realpathSync(tempDir("repo"));
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "pkg"));
    const user = { env: { ...process.env, VENOM_HOME: home, HOME: tempDir("user") }, bin: ORCH_BIN, cwd: join(repo, "pkg") };
    try {
      const run = cli(user, ["run", "demo", "hi", "--yes"]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("demo-1: done (exit 0)\ndemo agent: got a prompt of 2 characters\n");
      const { pid, workspace } = JSON.parse(cli(user, ["status", "--json"]).stdout);
      expect(workspace).toBe(repo);
      expect(run.stderr.split("\n")[0]).toBe(`venom-orch: no daemon was running: started one (pid ${pid}) for the workspace ${repo}`);
      expect(JSON.parse(cli({ ...user, bin: MUX_BIN }, ["status", "--json"]).stdout).workspace).toBe(repo);
    } finally {
      cli(user, ["stop"]);
      cli({ ...user, bin: MUX_BIN }, ["stop"]);
    }
  });

  it("bash completes run's agent from the configuration and attach's and cancel's job from the running daemon", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: ORCH_BIN };
    expect(cli(orch, ["run", "demo", "sleep 20", "--yes", "--background"]).code).toBe(0);
    expect(bashComplete(orch, "venom-orch", "venom-orch run ")).toEqual(expect.arrayContaining(["claude", "codex", "demo", "pi"]));
    expect(bashComplete(orch, "venom-orch", "venom-orch run d")).toEqual(["demo", "dsh"]);
    expect(bashComplete(orch, "venom-orch", "venom-orch attach ")).toEqual(["demo-1"]);
    expect(bashComplete(orch, "venom-orch", "venom-orch cancel --yes d")).toEqual(["demo-1"]);
    expect(cli(orch, ["cancel", "demo-1", "--yes"]).code).toBe(0);
  });

  it("run: a program that cannot be executed is never reported running; it fails with exit 127", async () => {
    // venom-pty-exec shows the agent's argv until its exec, which fails here: that is not the agent running.
    const broken = join(tempDir("broken"), "agent");
    writeFileSync(broken, "#!/nonexistent/interpreter\n", { mode: 0o755 });
    const stack = await startStack({ config: `[agents.codex]\nexecutable = "${broken}"\n` });
    const run = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["run", "codex", "hello", "--yes"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^codex-1: failed \(exit 127\)/);
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      "venom-orch: codex-1 starting",
      "venom-orch: codex-1 failed exit 127",
      "venom-orch: failed: codex-1 failed",
    ]);
  });

  it("run answers once nothing of the job's group still runs: a process left behind that ignores HUP and TERM is killed first", async () => {
    const dir = tempDir("leftover");
    const agent = join(dir, "agent");
    const leftPid = join(dir, "left.pid");
    // The agent exits only once its helper ignores HUP and TERM (it wrote its pid after the trap).
    const helper = `trap "" HUP TERM; echo $$ > ${leftPid}; exec sleep 300`;
    writeFileSync(agent, `#!/bin/sh\nsh -c '${helper}' &\nwhile [ ! -s ${leftPid} ]; do sleep 0.01; done\necho finished\n`, {
      mode: 0o755,
    });
    const stack = await startStack({ config: `[agents.codex]\nexecutable = "${agent}"\n` });
    const run = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["run", "codex", "hello", "--yes"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^codex-1: done \(exit 0\)\nfinished\n/);
    const left = Number(readFileSync(leftPid, "utf8"));
    expect(left).toBeGreaterThan(1);
    // Gone, or a zombie its new parent has not reaped yet: it runs nothing either way.
    expect(isGone(processStat(left))).toBe(true);
  });

  it("run starts the agent where it is run, as venom-mux new -c: a relative --cwd from there (from the root when run outside), outside the workspace refused", async () => {
    const stack = await startStack();
    mkdirSync(join(stack.workspace, "sub", "deeper"), { recursive: true });
    mkdirSync(join(stack.workspace, "other"));
    const runIn = (dir: string, extra: string[] = []) =>
      spawnSync(process.execPath, [ORCH_BIN, "run", "demo", "hi", "--yes", ...extra], { cwd: dir, env: stack.orch.env, encoding: "utf8" });
    const ws = realpathSync(stack.workspace);
    expect(runIn(join(ws, "sub")).status).toBe(0);
    expect(runIn(join(ws, "sub"), ["--cwd", "deeper"]).status).toBe(0);
    expect(runIn(join(ws, "sub"), ["--cwd", "../other"]).status).toBe(0);
    // Run from outside the workspace: the agent starts in its root, and a relative --cwd is taken from there; a directory outside is refused.
    const outside = tempDir("outside");
    expect(runIn(outside).status).toBe(0);
    expect(runIn(outside, ["--cwd", "other"]).status).toBe(0);
    const refused = runIn(outside, ["--cwd", outside]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/arguments\.cwd: resolves outside the workspace/);
    expect(stack.runs("demo").map((run) => run.cwd)).toEqual([
      join(ws, "sub"),
      join(ws, "sub", "deeper"),
      join(ws, "other"),
      ws,
      join(ws, "other"),
    ]);
  });

  it("starts venom-mux in the same home when it is not running, and the job runs in one of its panes", async () => {
    const orch = await startOrch({ config: `[agents.demo]\nexecutable = "${DEMO_AGENT}"\n` });
    const mux = { env: orch.env, bin: MUX_BIN };
    expect(cli(mux, ["ls"]).code).toBe(4);
    try {
      const run = cli({ env: orch.env, bin: orch.bin }, ["run", "demo", "hi", "--yes"]);
      expect(run.code, run.stderr).toBe(0);
      const { pid } = JSON.parse(cli(mux, ["status", "--json"]).stdout);
      // A daemon of its own: the leader of a session of its own, and stopping the venom-orch that started it leaves it running.
      expect(processStat(pid)?.sid).toBe(pid);
      expect(cli({ env: orch.env, bin: orch.bin }, ["stop"]).code).toBe(0);
      expect(cli(mux, ["status"]).stdout).toMatch(/venom-mux .* running/);
    } finally {
      cli(mux, ["stop"]);
    }
  });

  it("run escapes what the agent printed before it reaches the terminal", async () => {
    const stack = await startStack();
    const run = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["run", "demo", "say abc\u202edef", "--yes"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("abc\\u202edef");
    expect(run.stdout).not.toContain("\u202e");
  });

  it("attach JOB shows the job's pane the way venom-mux attach does; C-b d detaches", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    expect(cli(orch, ["run", "demo", "hold watching-this-pane", "--yes", "--background"]).code).toBe(0);
    await expect.poll(() => cli(orch, ["jobs"]).stdout, { timeout: 30_000 }).toMatch(/demo-1 running/);
    // Without a terminal venom-mux attach refuses and says why; nothing claims a detach that never was.
    const refused = cli(orch, ["attach", "demo-1"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs a terminal/);
    expect(refused.stderr).not.toMatch(/detached/);
    await attachSeesThenDetaches(stack, "demo-1", /watching-this-pane/);
    // Detaching left the job running.
    expect(cli(orch, ["jobs"]).stdout).toMatch(/demo-1 running/);
    expect(cli(orch, ["cancel", "demo-1", "--yes"]).code).toBe(0);
    await expect.poll(() => cli(orch, ["jobs"]).stdout, { timeout: 30_000 }).toMatch(/demo-1 cancelled/);
  });

  it("attach JOB ends when the job does, saying how it ended, rather than moving on to another job's pane", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    expect(cli(orch, ["run", "demo", "hold the-other-job", "--yes", "--background"]).code).toBe(0);
    expect(cli(orch, ["run", "demo", "hold the-watched-job", "--yes", "--background"]).code).toBe(0);
    await expect.poll(() => cli(orch, ["jobs"]).stdout, { timeout: 30_000 }).toMatch(/demo-2 running/);
    const session = `orch-attach-end-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });
    const env = Object.entries({ VENOM_HOME: stack.home, HOME: stack.userHome }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const shell = `${process.execPath} ${ORCH_BIN} attach demo-2; echo ATTACH-EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", ...env, "sh", "-c", shell);
    const screen = () => tmux("capture-pane", "-p", "-t", session).stdout;
    try {
      await expect.poll(screen, { timeout: 20_000 }).toMatch(/the-watched-job/);
      expect(cli(orch, ["cancel", "demo-2", "--yes"]).code).toBe(0);
      await expect.poll(screen, { timeout: 20_000 }).toMatch(/ATTACH-EXIT=0/);
      expect(screen()).toMatch(/venom-orch: demo-2 ended: cancelled/);
      expect(screen()).not.toMatch(/the-other-job/);
    } finally {
      tmux("kill-session", "-t", session);
    }
    expect(cli(orch, ["cancel", "demo-1", "--yes"]).code).toBe(0);
  });

  it("approvals asked together on the terminal come one at a time: one y answers only the request shown", async () => {
    const stack = await startStack({ config: `[agents.fake]\nexecutable = "${ACP_AGENT}"\nacp = true\n` });
    const session = `orch-gate-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });
    const env = Object.entries({ VENOM_HOME: stack.home, HOME: stack.userHome }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const shell = `cd ${stack.workspace} && ${process.execPath} ${ORCH_BIN} run fake 'together execute edit'; echo RUN-EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", ...env, "sh", "-c", shell);
    const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session).stdout;
    const asked = () => screen().match(/Allow this call/g)?.length ?? 0;
    try {
      await expect.poll(asked, { timeout: 30_000 }).toBe(1);
      tmux("send-keys", "-t", session, "y", "Enter"); // the launch
      await expect.poll(asked, { timeout: 30_000 }).toBe(2);
      tmux("send-keys", "-t", session, "y", "Enter"); // the first of the agent's two requests: only it
      await expect.poll(asked, { timeout: 30_000 }).toBe(3);
      tmux("send-keys", "-t", session, "n", "Enter"); // the second
      await expect.poll(screen, { timeout: 30_000 }).toMatch(/RUN-EXIT=/);
      const answered = screen().match(/together: (\w+) selected (\w+), (\w+) selected (\w+)/);
      expect(
        answered
          ?.slice(1)
          .filter((kind) => kind.endsWith("_once"))
          .sort(),
      ).toEqual(["allow_once", "reject_once"]);
    } finally {
      tmux("kill-session", "-t", session);
    }
  });

  it("run --yes on a terminal asks nothing: the launch and the agent's edit are approved, and said", async () => {
    const stack = await startStack({ config: `[agents.fake]\nexecutable = "${ACP_AGENT}"\nacp = true\n` });
    const session = `orch-yes-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });
    const env = Object.entries({ VENOM_HOME: stack.home, HOME: stack.userHome }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const shell = `cd ${stack.workspace} && ${process.execPath} ${ORCH_BIN} run fake 'tool edit a.txt' --yes; echo RUN-EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", ...env, "sh", "-c", shell);
    const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session).stdout;
    try {
      await expect.poll(screen, { timeout: 30_000 }).toMatch(/RUN-EXIT=0/);
      expect(screen()).not.toMatch(/Allow this call/);
      expect(screen()).toContain("tool edit: selected allow_once");
      expect(screen()).toMatch(/approved without asking \(autoApprove\)/);
    } finally {
      tmux("kill-session", "-t", session);
    }
  });

  it("agents doctor shows the private home and whether it is signed in, never the key", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    const login = spawnSync(process.execPath, [ORCH_BIN, "agents", "login", "dsh", "--api-key"], {
      env: stack.orch.env,
      input: "sk-status-canary\n",
      encoding: "utf8",
    });
    expect(login.status, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain("sk-status-canary");
    const doctor = cli(orch, ["agents", "doctor", "dsh"]);
    expect(doctor.stdout).toContain(
      `private home ${join(stack.home, "agents", "dsh")}; DSH_HOME points at ${join(stack.home, "agents", "dsh", "state")}`,
    );
    expect(doctor.stdout).toMatch(/^ {2}signed in$/m);
    expect(doctor.stdout).not.toContain("sk-status-canary");
    // status is doctor's other name.
    expect(cli(orch, ["agents", "status", "dsh"]).stdout).toBe(doctor.stdout);
  });

  it("agents list says for each agent why it is or is not offered", async () => {
    const stack = await startStack({ fakes: ["codex"] });
    const list = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["agents", "list"]).stdout;
    expect(list).toMatch(new RegExp(`^codex +offered: ${join(stack.userHome, ".local/bin/codex")}$`, "m"));
    expect(list).toMatch(/^claude +not offered: claude not found in ~\/\.local\/bin or PATH$/m);
    expect(list).toMatch(/^grok +not offered: grok not found in ~\/\.grok\/bin, ~\/\.local\/bin or PATH$/m);
    expect(list).toMatch(/^demo +offered: .*demo-agent\.mjs$/m);
  });

  it("agents list answers from its memo of the validated configuration until config.toml changes", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    const first = cli(orch, ["agents", "list", "--json"]);
    // The built CLI kept what it validated, privately, with the identity of its build (config-memo.ts).
    const memoFile = join(stack.home, "state", "config-memo.orch.json");
    const memo = JSON.parse(readFileSync(memoFile, "utf8"));
    expect(statSync(memoFile).mode & 0o777).toBe(0o600);
    expect(memo.build).toMatch(/^[0-9a-f]{32}$/);
    expect(memo.source).toBe(readFileSync(join(stack.home, "config.toml"), "utf8"));
    expect(cli(orch, ["agents", "list", "--json"]).stdout).toBe(first.stdout);
    // An edit is seen by the next command, and a mistake in it fails as it always did.
    writeFileSync(join(stack.home, "config.toml"), `${memo.source}[agents.added]\nexecutable = "/bin/true"\n`);
    expect(cli(orch, ["agents", "list"]).stdout).toMatch(/^added +offered: \/bin\/true$/m);
    writeFileSync(join(stack.home, "config.toml"), `${memo.source}[agents.added]\nexecutable = 5\n`);
    const broken = cli(orch, ["agents", "list"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/config\.toml: key agents\.added\.executable: .*string/);
  });

  it("agents login --api-key reads a key without echo into the agent's own file, 0600, and is refused under a delegation", async () => {
    const home = tempDir("home");
    const session = `orch-login-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });
    tmux(
      "new-session",
      "-d",
      "-s",
      session,
      "-x",
      "100",
      "-y",
      "20",
      "-e",
      `VENOM_HOME=${home}`,
      process.execPath,
      ORCH_BIN,
      "agents",
      "login",
      "pi",
      "--api-key",
    );
    try {
      await expect
        .poll(() => tmux("capture-pane", "-p", "-t", session).stdout, { timeout: 20_000 })
        .toMatch(/API key for pi \(not echoed\):/);
      tmux("send-keys", "-t", session, "-l", "sk-canary-12345");
      tmux("send-keys", "-t", session, "Enter");
      const keyFile = join(home, "agents", "pi", "state", "auth.json");
      await expect.poll(() => readIfThere(keyFile), { timeout: 20_000 }).toContain('"key": "sk-canary-12345"');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, "agents", "pi")).mode & 0o777).toBe(0o700);
    } finally {
      const screen = tmux("capture-pane", "-p", "-t", session).stdout;
      tmux("kill-session", "-t", session);
      expect(screen).not.toContain("sk-canary");
    }
    const refused = cli({ env: { ...process.env, VENOM_HOME: home }, bin: ORCH_BIN }, ["agents", "login", "pi"], {
      VENOM_DELEGATION_DEPTH: "1",
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/refused: this process runs under a Venom delegation/);
  });

  it("stop with a job running says stopped only once the daemon's process has exited, and start works right after", async () => {
    const stack = await startStack();
    const { client } = await stack.person();
    const pid = (await client.request("daemon/status")).pid;
    const started = await client.callTool("agent", { agent: "demo", prompt: "hold frozen", background: true });
    expect(started.status).toBe("ok");
    client.close();
    const stopped = cli(stack.orch, ["stop"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe("venom-orch stopped\n");
    expect(alive(pid)).toBe(false);
    const again = cli(stack.orch, ["start", "--workspace", stack.workspace]);
    expect(again.code, again.stderr).toBe(0);
    expect(cli(stack.orch, ["stop"]).stdout).toBe("venom-orch stopped\n");
  });
});
