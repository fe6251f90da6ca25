import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashComplete, cleanupAll, cli, ECHO_BIN, startEcho, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const NATIVE = new URL("../../../packages/native/dist/index.js", import.meta.url).href;

describe("venom-echo CLI", () => {
  it("--help states that no sandbox is active and lists the commands", () => {
    const result = cli({ env: process.env }, ["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/no sandbox is active/);
    for (const command of ["serve", "start", "stop", "status", "restart", "call"]) expect(result.stdout).toContain(`venom-echo ${command}`);
    expect(cli({ env: process.env }, ["call", "--help"]).stdout).toMatch(/no sandbox is active/);
  });

  it("a reader that stops early (| head) ends a command quietly with 141, as SIGPIPE ends a C tool; no stack trace", async () => {
    const child = spawn(process.execPath, [ECHO_BIN, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    // The reading end is closed before the command writes: its first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(141);
  });

  it("start returns once the socket answers; status and stop work; modes are private", () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const env = { ...process.env, VENOM_HOME: home };
    const started = cli({ env }, ["start", "--workspace", workspace, "--json"]);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ started: true, workspace });
    const socket = join(home, "state", "echo.sock");
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    for (const dir of [home, join(home, "state"), join(home, "logs")]) expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "logs", "echo.log")).mode & 0o777).toBe(0o600);
    expect(cli({ env }, ["start", "--workspace", workspace]).stderr).toMatch(/already running/);
    const status = JSON.parse(cli({ env }, ["status", "--json"]).stdout);
    expect(status).toMatchObject({ workspace, principal: { kind: "owner" } });
    expect(cli({ env }, ["call", "echo", '{"text":"from the cli"}']).stdout).toBe("from the cli\n");
    expect(cli({ env }, ["stop"]).code).toBe(0);
    expect(existsSync(socket)).toBe(false);
    const after = cli({ env }, ["status"]);
    expect(after.code).toBe(4);
    expect(after.stderr).toContain(`no venom-echo daemon is running on ${socket}; \`venom-echo start\` starts one`);
  });

  it("stop says stopped only once the daemon's process has exited, and start works right after", () => {
    const env = { ...process.env, VENOM_HOME: tempDir("home") };
    const workspace = tempDir("ws");
    expect(cli({ env }, ["start", "--workspace", workspace]).code).toBe(0);
    const { pid } = JSON.parse(cli({ env }, ["status", "--json"]).stdout);
    const stopped = cli({ env }, ["stop"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe("venom-echo stopped\n");
    expect(alive(pid)).toBe(false);
    const again = cli({ env }, ["start", "--workspace", workspace]);
    expect(again.code, again.stderr).toBe(0);
    expect(cli({ env }, ["stop"]).code).toBe(0);
  });

  it("restart returns once the new daemon answers: the next command finds it, with a new pid", () => {
    const home = tempDir("home");
    const env = { ...process.env, VENOM_HOME: home };
    expect(cli({ env }, ["start", "--workspace", tempDir("ws")]).code).toBe(0);
    const before = JSON.parse(cli({ env }, ["status", "--json"]).stdout).pid;
    const restarted = cli({ env }, ["restart", "--json"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const { pid } = JSON.parse(restarted.stdout);
    expect(pid).not.toBe(before);
    // At once: no wait between the two commands.
    const status = cli({ env }, ["status", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).pid).toBe(pid);
    expect(cli({ env }, ["stop"]).code).toBe(0);
  });

  it("three starts at once: one starts the daemon, the others say it is already running and name its pid", async () => {
    const home = tempDir("home");
    const env = { ...process.env, VENOM_HOME: home };
    const workspace = tempDir("ws");
    const starts = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, [ECHO_BIN, "start", "--workspace", workspace], { env });
            let stdout = "";
            let stderr = "";
            child.stdout.on("data", (d) => {
              stdout += d;
            });
            child.stderr.on("data", (d) => {
              stderr += d;
            });
            child.on("close", (code) => resolve({ code, stdout, stderr }));
          }),
      ),
    );
    const { pid } = JSON.parse(cli({ env }, ["status", "--json"]).stdout);
    const started = starts.filter((start) => start.code === 0);
    expect(started).toHaveLength(1);
    expect(started[0]?.stdout).toContain(`started (pid ${pid})`);
    for (const other of starts.filter((start) => start.code !== 0)) {
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`already running on ${join(home, "state", "echo.sock")} (pid ${pid})`);
    }
    expect(cli({ env }, ["stop"]).code).toBe(0);
  });

  it("a start that finds another daemon of the home mid-start waits for it, and never takes the socket from it", async () => {
    const home = tempDir("home");
    const env = { ...process.env, VENOM_HOME: home };
    const socket = join(home, "state", "echo.sock");
    mkdirSync(join(home, "state"), { mode: 0o700 });
    // Another daemon starting: it holds the home's start lock and listens only after a pause (as a daemon still
    // reaping a predecessor's orphans, or preempted between bind and listen), then lets go of the lock.
    const other = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { closeSync, openSync } from "node:fs"; import { createServer } from "node:net";
         const { tryLockExclusive } = await import(${JSON.stringify(NATIVE)});
         const lock = openSync(${JSON.stringify(`${socket}.lock`)}, "a", 0o600);
         if (!tryLockExclusive(lock)) process.exit(9);
         console.log("locked");
         setTimeout(() => createServer((c) => c.end()).listen(${JSON.stringify(socket)}, () => closeSync(lock)), 700);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise((resolve) => other.stdout.once("data", resolve));
      const start = cli({ env }, ["start", "--workspace", tempDir("ws")]);
      expect(start.code, start.stdout).toBe(1);
      expect(start.stderr).toContain(`already running on ${socket} (pid ${other.pid})`);
    } finally {
      other.kill();
    }
    // The daemon that start spawned gave up: nothing of venom-echo's serves the home.
    await new Promise((resolve) => other.once("exit", resolve));
    expect(cli({ env }, ["status"]).code).toBe(4);
  });

  it("call starts the daemon when none runs in the home, as tmux new starts its server: for the repository holding this directory, said on stderr; a delegated process is refused", () => {
    const repo = realpathSync(tempDir("repo"));
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "src", "deep"), { recursive: true });
    const env = { ...process.env, VENOM_HOME: tempDir("home") };
    const here = { env, cwd: join(repo, "src", "deep") };
    // Inside a delegation, starting a daemon is management: refused as every management is, and nothing starts.
    const delegated = cli(here, ["call", "echo", '{"text":"hi"}'], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "x/y" });
    expect(delegated.code).toBe(3);
    expect(delegated.stderr).toMatch(/refused: no venom-echo daemon is running on \S+, and starting one needs the owner context/);
    expect(cli(here, ["status"]).code).toBe(4);
    const first = cli(here, ["call", "echo", '{"text":"hi"}']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe("hi\n");
    const { pid, workspace } = JSON.parse(cli(here, ["status", "--json"]).stdout);
    expect(workspace).toBe(repo);
    expect(first.stderr).toBe(`venom-echo: no daemon was running: started one (pid ${pid}) for the workspace ${repo}\n`);
    // The next call finds it running and says nothing about starting.
    expect(cli(here, ["call", "echo", '{"text":"again"}'])).toMatchObject({ code: 0, stdout: "again\n", stderr: "" });
    expect(cli(here, ["stop"]).code).toBe(0);
    // Outside any repository the workspace is the directory the command runs in.
    const plain = realpathSync(tempDir("plain"));
    expect(cli({ env, cwd: plain }, ["call", "echo", '{"text":"x"}']).code).toBe(0);
    expect(JSON.parse(cli(here, ["status", "--json"]).stdout).workspace).toBe(plain);
    expect(cli(here, ["stop"]).code).toBe(0);
  });

  it("bash completes call's tool from the running daemon, and offers none (starting nothing) when it is not running", async () => {
    const echo = await startEcho();
    expect(bashComplete(echo, "venom-echo", "venom-echo call ")).toEqual(["echo", "read", "run", "write"]);
    expect(bashComplete(echo, "venom-echo", "venom-echo c")).toEqual(["call", "completion"]);
    const none = { env: { ...process.env, VENOM_HOME: tempDir("home") } };
    expect(bashComplete(none, "venom-echo", "venom-echo call ")).toEqual([]);
    expect(cli(none, ["status"]).code).toBe(4);
  });

  it("start with a bad config.toml says why the daemon did not start, naming the file and key", () => {
    const home = tempDir("home");
    writeFileSync(join(home, "config.toml"), '[tools]\nmax_timeout_seconds = "soon"\n');
    const start = cli({ env: { ...process.env, VENOM_HOME: home } }, ["start", "--workspace", tempDir("ws")]);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(
      `the daemon did not start: venom-echo serve: ${join(home, "config.toml")}: key tools.max_timeout_seconds:`,
    );
  });

  it("a custom VENOM_HOME never falls back to ~/.venom", () => {
    const home = tempDir("home");
    const fakeUserHome = tempDir("user");
    const result = cli({ env: { ...process.env, VENOM_HOME: home, HOME: fakeUserHome } }, ["status"]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(join(home, "state", "echo.sock"));
    expect(existsSync(join(fakeUserHome, ".venom"))).toBe(false);
  });

  it("bad input gets a usage error that names what was wrong", async () => {
    const daemon = await startEcho();
    expect(cli(daemon, ["call", "echo", "{not json"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/not valid JSON/) });
    expect(cli(daemon, ["call", "echo", "[1]"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/must be a JSON object/) });
    expect(cli(daemon, ["frobnicate"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown command "frobnicate"/) });
    // Under --json a usage error is JSON on stdout, whether the command or the parse of its flags found it.
    for (const args of [
      ["call", "echo", "{not json", "--json"],
      ["call", "--json", "--bogus"],
    ]) {
      const usage = cli(daemon, args);
      expect(usage.code).toBe(2);
      expect(JSON.parse(usage.stdout)).toMatchObject({
        error: "usage",
        message: expect.stringMatching(/not valid JSON|unknown flag --bogus/),
      });
    }
    const invalid = cli(daemon, ["call", "echo", '{"text": 5}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/arguments\.text/);
    await daemon.stop();
  });

  it("without a terminal, an approval is denied and the exit code says so", async () => {
    const daemon = await startEcho({ files: { ".env": "TOKEN=x\n" } });
    const result = cli(daemon, ["call", "read", '{"path":".env"}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/denied: read needs approval and no one can be asked/);
    await daemon.stop();
  });

  it("on a terminal, call asks y/N with the tool name and summary, and the answer decides", async () => {
    const daemon = await startEcho({ files: { ".env": "TOKEN=approved-content\n" } });
    const session = `venom-echo-test-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync("tmux", ["-L", session, ...args], { encoding: "utf8" });
    const screen = () => tmux("capture-pane", "-p", "-t", session);
    const waitFor = (pattern: RegExp) => expect.poll(screen, { timeout: 30_000 }).toMatch(pattern);
    const command = (answer: string) =>
      `env VENOM_HOME=${daemon.home} ${process.execPath} ${ECHO_BIN} call read '{"path":".env"}'; echo "exit=$?" # ${answer}`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", "sh");
    try {
      tmux("send-keys", "-t", session, command("yes"), "Enter");
      await waitFor(/Allow this call \(read\)\? \[y\/N\]/);
      expect(screen()).toMatch(/approval needed \[echo\] read \(secret-read\)\s+read \.env/);
      tmux("send-keys", "-t", session, "y", "Enter");
      await waitFor(/exit=0/);
      expect(screen()).toContain("TOKEN=approved-content");

      tmux("send-keys", "-t", session, "clear", "Enter");
      tmux("send-keys", "-t", session, command("no"), "Enter");
      await waitFor(/Allow this call \(read\)\? \[y\/N\]/);
      tmux("send-keys", "-t", session, "n", "Enter");
      await waitFor(/exit=1/);
      expect(screen()).toMatch(/denied: the approval for read was refused/);
    } finally {
      spawnSync("tmux", ["-L", session, "kill-server"]);
      await daemon.stop();
    }
  });
});
