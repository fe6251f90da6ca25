import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setChildSubreaper } from "@venom/native";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runProcess, type SpawnInfo } from "../src/process-runner.js";
import { sandboxedCommand, sandboxLauncher } from "../src/sandbox/launch.js";
import { confinementFor, planRuleset, type SandboxProfile } from "../src/sandbox/plan.js";
import { sandboxProfileFor } from "../src/sandbox/profile.js";

// Real confined processes: the launcher restricts itself with Landlock and
// execs the program; every claim of docs/security-model.md "Confinement
// (opt-in)" about what a confined process cannot do is an attempt here.

beforeAll(() => setChildSubreaper());

// By path: testkit depends on this package (its daemons are built on it), so this package cannot depend on testkit.
const WITHOUT_LANDLOCK = fileURLToPath(new URL("../../../testkit/without-landlock.mjs", import.meta.url));
const RUNTIME_DIST = new URL("../dist/index.js", import.meta.url).href;

/** The C launcher the build compiled (what every launch here uses), and the Node one used where no C compiler was. */
const LAUNCHERS = [
  ["C", sandboxLauncher()],
  ["Node", sandboxLauncher(null)],
] as const;

let root: string;
let workspace: string;
let outside: string;
let realHome: string;
let privateHome: string;
const children: ChildProcess[] = [];
const servers: Server[] = [];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "venom-sandbox-")));
  workspace = join(root, "ws");
  outside = join(root, "outside");
  realHome = join(root, "real-home");
  privateHome = join(root, "venom-home", "agents", "run");
  for (const dir of [workspace, outside, join(realHome, ".ssh")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(realHome, ".ssh", "id_ed25519"), "PRIVATE-KEY-CANARY\n");
  writeFileSync(join(outside, "keep"), "kept\n");
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const server of servers.splice(0)) server.close();
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function profile(options: { network?: SandboxProfile["network"]; writable?: string[]; records?: string } = {}): SandboxProfile {
  return sandboxProfileFor({
    workspace,
    cwd: workspace,
    home: privateHome,
    records: options.records ?? join(root, "venom-home", "state", "delegations"),
    writable: options.writable ?? [],
    network: options.network ?? "any",
    path: process.env.PATH,
    realHome,
  });
}

async function confined(run: { command: string } | { argv: string[] }, sandbox = profile(), env: NodeJS.ProcessEnv = process.env) {
  let spawned: SpawnInfo | undefined;
  const result = await runProcess({
    ...run,
    cwd: ".",
    workspaceRoot: workspace,
    env,
    timeoutSeconds: 60,
    maxOutputBytes: 1024 * 1024,
    signal: new AbortController().signal,
    sandbox,
    onSpawn: (info) => {
      spawned = info;
    },
  });
  return { ...result, pid: spawned?.pid };
}

describe("a confined process (Landlock)", () => {
  it("writes the workspace, its private home and temp dir, and nothing else: a write or removal outside is EACCES, and no device node is made", async () => {
    const result = await confined({
      command: `echo a > in-ws && echo b > "$HOME/in-home" && echo c > "$TMPDIR/in-tmp" && echo HOME=$HOME TMPDIR=$TMPDIR
echo d > ${outside}/new; rm -f ${outside}/keep; mkdir ${outside}/dir; mknod loop b 7 0; mknod null c 1 3; exit 0`,
    });
    // Not even root makes a device node in the workspace, to open a disk or terminal through it.
    expect(existsSync(join(workspace, "loop"))).toBe(false);
    expect(existsSync(join(workspace, "null"))).toBe(false);
    expect(result.output).toContain(`HOME=${privateHome} TMPDIR=${join(privateHome, "tmp")}`);
    expect(readFileSync(join(workspace, "in-ws"), "utf8")).toBe("a\n");
    expect(readFileSync(join(privateHome, "in-home"), "utf8")).toBe("b\n");
    expect(readFileSync(join(privateHome, "tmp", "in-tmp"), "utf8")).toBe("c\n");
    expect(result.output).toMatch(/new: Permission denied/);
    expect(result.output).toMatch(/cannot remove .*keep.*: Permission denied/);
    expect(result.output).toMatch(/cannot create directory .*: Permission denied/);
    expect(existsSync(join(outside, "new"))).toBe(false);
    expect(existsSync(join(outside, "dir"))).toBe(false);
    expect(readFileSync(join(outside, "keep"), "utf8")).toBe("kept\n");
  });

  it("reads nothing of the real home (its ~/.ssh included) and nothing outside the granted directories", async () => {
    const result = await confined({ command: `cat ${realHome}/.ssh/id_ed25519; ls ${realHome}; cat ${outside}/keep; exit 0` });
    expect(result.output).not.toContain("PRIVATE-KEY-CANARY");
    expect(result.output).not.toContain("kept");
    expect(result.output).toMatch(/id_ed25519: Permission denied/);
    expect(result.output).toMatch(/cannot open directory .*real-home.*: Permission denied/);
    expect(result.output).toMatch(/keep: Permission denied/);
  });

  it("every descendant inherits the restriction, even one that leaves the session with setsid", async () => {
    const result = await confined({
      command: `bash -c 'echo x > ${outside}/by-grandchild'; setsid sh -c 'cat ${realHome}/.ssh/id_ed25519; echo y > ${outside}/by-setsid'; node -e 'require("fs").writeFileSync("${outside}/by-node", "z")' 2>&1 | grep -o EACCES; exit 0`,
    });
    expect(result.output).toMatch(/by-grandchild: Permission denied/);
    expect(result.output).toMatch(/id_ed25519: Permission denied/);
    expect(result.output).toMatch(/by-setsid: Permission denied/);
    expect(result.output).toMatch(/^EACCES$/m);
    expect(result.output).not.toContain("PRIVATE-KEY-CANARY");
    for (const name of ["by-grandchild", "by-setsid", "by-node"]) expect(existsSync(join(outside, name))).toBe(false);
  });

  it("the program is exec'd in the launcher's place: same pid, argv intact as given, env passed on exactly, nothing of it runs unconfined", async () => {
    writeFileSync(join(workspace, "evil.cjs"), `require("fs").writeFileSync(${JSON.stringify(join(outside, "pwned"))}, "x");`);
    const prompt = `one argument; $(touch ${outside}/pwned) 'quoted' "double"\nsecond line`;
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", FOO: "bar baz", NODE_OPTIONS: `--require ${join(workspace, "evil.cjs")}` };
    const result = await confined(
      { argv: ["sh", "-c", `printf "[%s]\\n" "$1" "$FOO" "$$" "\${VENOM_SANDBOX_RULESET-unset}"`, "sh", prompt] },
      profile(),
      env,
    );
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe(`[${prompt}]\n[bar baz]\n[${result.pid}]\n[unset]\n`);
    // NODE_OPTIONS was for the program, not the launcher: evil.cjs never ran, in or out of the sandbox.
    expect(existsSync(join(outside, "pwned"))).toBe(false);
    // The environment travels in the launcher's environment, never on the command line other users can read.
    expect(sandboxedCommand(profile(), ["true"], { TOKEN: "SECRET-CANARY" }).args.join("\n")).not.toContain("SECRET-CANARY");
  });

  it('network = "none": TCP connect is refused and nothing reaches the server; "any" leaves it open', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const refused = await confined({ command: `echo hi > /dev/tcp/127.0.0.1/${port}` }, profile({ network: "none" }));
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/connect: Permission denied/);
    expect(connections).toBe(0);
    const open = await confined({ command: `echo hi > /dev/tcp/127.0.0.1/${port}` }, profile({ network: "any" }));
    expect(open.exitCode).toBe(0);
    await expect.poll(() => connections, { timeout: 10_000 }).toBe(1);
  });

  it("signals are scoped: a kill of a process outside the sandbox is refused, its own children can be signalled", async () => {
    const victim = spawn("sleep", ["300"], { stdio: "ignore" });
    children.push(victim);
    const result = await confined({
      command: `kill -TERM ${victim.pid}; echo outer=$?; sleep 300 & kill -TERM $!; wait $!; echo inner=$?`,
    });
    expect(result.output).toMatch(/Operation not permitted/);
    expect(result.output).toMatch(/outer=1/);
    expect(result.output).toMatch(/inner=143/);
    expect(victim.exitCode).toBeNull();
    expect(victim.signalCode).toBeNull();
  });

  it("abstract Unix sockets are scoped: a server outside the sandbox cannot be reached", async () => {
    const name = `\0venom-sandbox-test-${process.pid}`;
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(name, resolve));
    const client = `require("net").createConnection(${JSON.stringify(name)}).on("connect", () => console.log("connected")).on("error", (e) => console.log(e.code))`;
    const result = await confined({ argv: ["node", "-e", client] });
    expect(result.output.trim()).toBe("EPERM");
    expect(connections).toBe(0);
  });

  it("the C launcher the build compiled is the one every launch uses", () => {
    const built = fileURLToPath(new URL("../../native/dist/venom-sandbox", import.meta.url));
    expect(readFileSync(built).subarray(0, 4)).toEqual(Buffer.from("\x7fELF", "latin1"));
    expect(sandboxLauncher()).toEqual({ kind: "c", file: built, args: [] });
    const command = sandboxedCommand(profile(), ["sh", "-c", "exit 3"], process.env);
    expect(command.file).toBe(built);
    expect(command.args).toEqual(["sh", "-c", "exit 3"]);
    expect(spawnSync(command.file, command.args, { env: command.env }).status).toBe(3);
  });

  it.each(LAUNCHERS)("the %s launcher stacks several profiles: the process keeps only what every one allows", (_, launcher) => {
    const extra = join(root, "extra-layered");
    mkdirSync(extra, { recursive: true });
    const command = sandboxedCommand(
      [profile({ writable: [extra] }), profile()],
      ["sh", "-c", `echo in > layered; echo out > ${extra}/f; cat ${realHome}/.ssh/id_ed25519; exit 0`],
      process.env,
      launcher,
    );
    const result = spawnSync(command.file, command.args, { env: command.env, cwd: workspace, encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(readFileSync(join(workspace, "layered"), "utf8")).toBe("in\n");
    expect(result.stderr).toMatch(/extra-layered\/f: Permission denied/);
    expect(result.stderr).toMatch(/id_ed25519: Permission denied/);
    expect(existsSync(join(extra, "f"))).toBe(false);
  });

  it("a path listed in sandbox.writable is writable; one that does not exist refuses the launch", async () => {
    const extra = join(root, "extra");
    mkdirSync(extra, { recursive: true });
    const result = await confined({ command: `echo ok > ${extra}/f` }, profile({ writable: [extra] }));
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(extra, "f"), "utf8")).toBe("ok\n");
    expect(() => profile({ writable: [join(root, "missing")] })).toThrow(/sandbox.writable: ".*missing" is not an existing absolute path/);
  });

  it("refuses a profile under which the process could write the delegation records its confinement is read from", () => {
    const records = (under: string) => join(under, "venom-home", "state", "delegations");
    expect(() => profile({ records: records(workspace) })).toThrow(
      /refused: the delegation records .* lie in .*\/ws, which a confined process could write/,
    );
    const extra = join(root, "extra");
    mkdirSync(extra, { recursive: true });
    expect(() => profile({ writable: [extra], records: records(extra) })).toThrow(/lie in .*\/extra.*keep VENOM_HOME outside/);
    expect(() => profile({ writable: [extra] })).not.toThrow();
  });
});

describe("fail closed", () => {
  const probe = (code: string) => {
    const file = join(root, "probe.mjs");
    writeFileSync(file, `const runtime = await import(${JSON.stringify(RUNTIME_DIST)});\n${code}`);
    return spawnSync(process.execPath, [WITHOUT_LANDLOCK], {
      env: { ...process.env, WITHOUT_LANDLOCK_SCRIPT: file },
      encoding: "utf8",
    });
  };

  it("on a kernel without Landlock nothing starts: the daemon side refuses before spawning, naming the reason", () => {
    const result = probe(`
try {
  runtime.sandboxedCommand(${JSON.stringify(profile())}, ["touch", ${JSON.stringify(join(outside, "ran"))}], process.env);
  console.log("started");
} catch (error) {
  console.log(error.name, error.message);
}`);
    expect(result.stdout).toMatch(
      /^ToolFailure refused: sandbox.mode is "landlock" but this kernel has no Landlock \(landlock_create_ruleset: ENOSYS\); nothing was started$/m,
    );
    expect(existsSync(join(outside, "ran"))).toBe(false);
  });

  it.each(LAUNCHERS)("on a kernel without Landlock the %s launcher itself refuses (exit 126) and never runs the program", (_, launcher) => {
    const command = sandboxedCommand(profile(), ["touch", join(outside, "ran")], process.env, launcher);
    const result = spawnSync(process.execPath, [WITHOUT_LANDLOCK, ...command.args], {
      env: { ...command.env, WITHOUT_LANDLOCK_EXEC: command.file },
      encoding: "utf8",
    });
    expect(result.status).toBe(126);
    expect(result.stderr).toMatch(/^venom-sandbox: cannot confine the process: landlock_create_ruleset failed: ENOSYS/);
    expect(existsSync(join(outside, "ran"))).toBe(false);
  });

  it.each(LAUNCHERS)(
    "the %s launcher hands the program no fd above stderr, even one it inherited that is not close-on-exec (docs/security-model.md, Descriptors)",
    (_, launcher) => {
      const command = sandboxedCommand(profile(), ["sh", "-c", "ls /proc/$$/fd; :"], process.env, launcher);
      // Started through a shell whose redirection leaves fd 99 open across exec.
      const result = spawnSync("bash", ["--norc", "--noprofile", "-c", 'exec "$@" 99</dev/null', "bash", command.file, ...command.args], {
        env: command.env,
        encoding: "utf8",
      });
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split("\n")).toEqual(["0", "1", "2"]);
    },
  );

  it.each(LAUNCHERS)(
    "the %s launcher refuses a malformed ruleset or a missing path (exit 126), and exits 127 for a missing program",
    (_, launcher) => {
      const run = (env: Record<string, string>, argv = ["touch", join(outside, "ran")]) => {
        const command = sandboxedCommand(profile(), argv, process.env, launcher);
        return spawnSync(command.file, command.args, { env: { ...command.env, ...env }, encoding: "utf8" });
      };
      const malformed = run({ VENOM_SANDBOX_RULESET: "layer 7 x" });
      expect(malformed.status).toBe(126);
      expect(malformed.stderr).toMatch(/^venom-sandbox: malformed ruleset line: "layer 7 x"/);
      const missing = run({ VENOM_SANDBOX_RULESET: `layer 3 32767 0 0 16391\n7 ${encodeURIComponent(join(root, "gone"))}` });
      expect(missing.status).toBe(126);
      expect(missing.stderr).toMatch(/^venom-sandbox: cannot confine the process: open ".*gone" failed: ENOENT\n$/);
      expect(existsSync(join(outside, "ran"))).toBe(false);
      const notFound = run({}, ["no-such-program-venom"]);
      expect(notFound.status).toBe(127);
      expect(notFound.stderr).toBe('venom-sandbox: "no-such-program-venom": no such program\n');
    },
  );

  it("a sandbox.writable or PATH directory in the workspace that a confined process replaced with a symlink leading out grants nothing there", async () => {
    const tools = join(root, "tools-outside");
    mkdirSync(tools, { recursive: true });
    writeFileSync(join(tools, "secret"), "TOOLS-CANARY\n");
    // What an earlier confined process left in the workspace, where the config names a writable path and PATH a tool dir.
    symlinkSync(outside, join(workspace, ".cache"));
    symlinkSync(tools, join(workspace, "bin"));
    try {
      const sandbox = sandboxProfileFor({
        workspace,
        cwd: workspace,
        home: privateHome,
        records: join(root, "venom-home", "state", "delegations"),
        writable: [join(workspace, ".cache")],
        network: "any",
        path: `${join(workspace, "bin")}:${process.env.PATH}`,
        realHome,
      });
      expect([...sandbox.writable, ...sandbox.readExec, ...sandbox.read]).not.toEqual(expect.arrayContaining([outside]));
      expect([...sandbox.readExec, ...sandbox.read]).not.toEqual(expect.arrayContaining([tools]));
      const result = await confined({ command: "echo x > .cache/planted; cat bin/secret; exit 0" }, sandbox);
      expect(result.output).toMatch(/planted: Permission denied/);
      expect(result.output).toMatch(/secret: Permission denied/);
      expect(result.output).not.toContain("TOOLS-CANARY");
      expect(existsSync(join(outside, "planted"))).toBe(false);
    } finally {
      rmSync(join(workspace, ".cache"));
      rmSync(join(workspace, "bin"));
    }
  });

  it("a temp dir swapped with a symlink while the profile is made never becomes the profile's temp dir", async () => {
    const tmp = join(privateHome, "tmp");
    profile();
    const link = join(privateHome, "tmp-link");
    symlinkSync(join(realHome, ".ssh"), link);
    // Swaps the real temp dir and the link, back and forth, as fast as it can (renameat2 RENAME_EXCHANGE, by syscall number).
    const renameat2 = { x64: 316, arm64: 276 }[process.arch as string];
    if (renameat2 === undefined) throw new Error(`no renameat2 syscall number known for ${process.arch}`);
    const flipper = spawn("perl", ["-e", `while (1) { syscall(${renameat2}, -100, $ARGV[0], -100, $ARGV[1], 2) }`, tmp, link], {
      stdio: "ignore",
    });
    children.push(flipper);
    let refused = 0;
    const tmps = new Set<string>();
    try {
      for (let i = 0; i < 400; i++) {
        try {
          tmps.add(profile().tmp);
        } catch {
          refused++; // the symlink was there when privateDir looked
        }
      }
    } finally {
      flipper.kill("SIGKILL");
      await once(flipper, "exit");
      // Left either way round: the real temp dir goes back in place.
      if (lstatSync(tmp).isSymbolicLink()) {
        rmSync(tmp);
        renameSync(link, tmp);
      } else rmSync(link);
    }
    expect(refused).toBeGreaterThan(0);
    expect([...tmps]).toEqual([tmp]);
  });

  it("no rule names a path below one the process may write, where it could have put a symlink by the time a launcher opens it", () => {
    const tools = join(workspace, "node_modules", ".bin");
    mkdirSync(tools, { recursive: true });
    const sandbox = {
      ...profile({ writable: [outside] }),
      readExec: [...profile().readExec, tools],
      read: ["/proc", join(outside, "docs")],
    };
    const plan = planRuleset(sandbox, 7);
    if ("refused" in plan) throw new Error(plan.refused);
    const paths = plan.rules.map((rule) => rule.path);
    expect(paths).toEqual(expect.arrayContaining([workspace, sandbox.home, outside, "/usr", "/proc"]));
    // The temp dir lies in the home, the tool dir in the workspace, the read path in a writable one: each is already writable.
    expect(paths).not.toContain(sandbox.tmp);
    expect(paths).not.toContain(tools);
    expect(paths).not.toContain(join(outside, "docs"));
  });

  it("an ABI too old for the profile is refused; what an older ABI lacks is reported, never assumed", () => {
    expect(confinementFor(2, "any")).toEqual({
      refused: "the kernel's Landlock ABI 2 cannot control truncate(2); confinement needs ABI 3 or later",
    });
    expect(planRuleset(profile({ network: "none" }), 3)).toEqual({
      refused: 'sandbox.network = "none" needs Landlock ABI 4 (TCP bind and connect rules); this kernel has ABI 3',
    });
    const abi4 = confinementFor(4, "none");
    expect(abi4).toMatchObject({ abi: 4, handled: { net: 3n, scoped: 0n } });
    expect("unsupported" in abi4 && abi4.unsupported).toEqual([
      "device ioctl control (LANDLOCK_ACCESS_FS_IOCTL_DEV, ABI 5)",
      "abstract unix socket scoping (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, ABI 6)",
      "signal scoping (LANDLOCK_SCOPE_SIGNAL, ABI 6)",
    ]);
    expect(confinementFor(6, "any")).toMatchObject({ abi: 6, handled: { net: 0n, scoped: 3n }, unsupported: [] });
  });
});
