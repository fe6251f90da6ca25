import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import { cleanupAll, MUX_BIN, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";
import { jobInState, jobs, orchCli, type RemoteHost, remoteHost } from "./remote-host.js";
import { attachSeesThenDetaches, startStack } from "./stack.js";

// A real OpenSSH server on 127.0.0.1 stands for the other host (docs/remote.md): its own host key, which the local
// side knows beforehand (known_hosts), and a key of ours it authorizes. Never skipped: without sshd it fails saying
// what to install.

const SSHD = "/usr/sbin/sshd";
const servers: ChildProcess[] = [];

afterAll(async () => {
  for (const server of servers) server.kill("SIGTERM");
  await cleanupAll();
});

function keygen(path: string): void {
  const made = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "venom-test", "-f", path], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr || made.error?.message}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Sshd {
  port: number;
  /** Our key, which the server authorizes, and one it does not. */
  key: string;
  strangerKey: string;
  /** The server's host key, as known_hosts has it for [127.0.0.1]:PORT. */
  knownHosts: string;
  /** A known_hosts that does not know the server. */
  emptyKnownHosts: string;
}

/** sshd on a free port of 127.0.0.1, in the foreground, logging to its stderr, with a temporary config and host key. */
async function startSshd(): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: install openssh-server (Debian: apt-get install openssh-server)`);
  const dir = tempDir("sshd");
  for (const name of ["host_key", "key", "stranger_key"]) keygen(join(dir, name));
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "key.pub")));
  chmodSync(join(dir, "authorized_keys"), 0o600);
  const port = await freePort();
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(dir, "host_key")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    `PidFile ${join(dir, "sshd.pid")}`,
    "PubkeyAuthentication yes",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PermitRootLogin prohibit-password",
    `AllowUsers ${userInfo().username}`,
    "UsePAM no",
    // The temporary directory is world-writable (/tmp): the keys in it are the test's own.
    "StrictModes no",
  ].join("\n");
  writeFileSync(join(dir, "sshd_config"), `${config}\n`);
  // sshd's privilege separation directory, which a system with sshd installed but never started may lack.
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const sshd = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
  servers.push(sshd);
  let log = "";
  sshd.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (sshd.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(join(dir, "empty_known_hosts"), "");
  return {
    port,
    key: join(dir, "key"),
    strangerKey: join(dir, "stranger_key"),
    knownHosts: join(dir, "known_hosts"),
    emptyKnownHosts: join(dir, "empty_known_hosts"),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * venom-mux as installed on the other host: a program on its side that runs with that host's VENOM_HOME (a login
 * there has its own), which `venom` in [hosts.NAME] names.
 */
function installedVenom(remote: RemoteHost): string {
  const path = join(tempDir("remote-bin"), "venom-mux");
  writeFileSync(path, `#!/bin/sh\nexec env VENOM_HOME='${remote.home}' '${process.execPath}' '${MUX_BIN}' "$@"\n`, { mode: 0o755 });
  return path;
}

function sshHost(name: string, server: Sshd, remote: RemoteHost, change: { identity?: string; known_hosts?: string } = {}): string {
  return [
    `[hosts.${name}]`,
    `ssh = "${userInfo().username}@127.0.0.1"`,
    `port = ${server.port}`,
    `identity = "${change.identity ?? server.key}"`,
    `known_hosts = "${change.known_hosts ?? server.knownHosts}"`,
    `venom = "${installedVenom(remote)}"`,
    `workspace = "${remote.workspace}"`,
    "",
  ].join("\n");
}

describe("an agent on another host over OpenSSH", () => {
  it("runs there through ssh: its venom-echo's write is asked here, labelled with the host; diff and attach reach it; kill -9 of venom-orch stops its pane there", async () => {
    const server = await startSshd();
    const remote = await remoteHost();
    // The workspace there is a repository whose over-ssh.txt the agent will change.
    const git = (...args: string[]) => spawnSync("git", args, { cwd: remote.workspace, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    writeFileSync(join(remote.workspace, "over-ssh.txt"), "before\n");
    git("add", "over-ssh.txt");
    git("-c", "user.email=p@example.com", "-c", "user.name=P", "commit", "-qm", "init");
    const stack = await startStack({ config: sshHost("devbox", server, remote) });
    const { client, asked } = await stack.person();
    const result = await client.callTool("agent", { agent: "demo", prompt: "write over-ssh.txt hello", host: "devbox" });
    expect(result.status, result.content).toBe("ok");
    expect(readFileSync(join(remote.workspace, "over-ssh.txt"), "utf8")).toBe("hello");
    // Its diff, through a new ssh bridge.
    const diff = orchCli(stack, ["diff", "demo-1"]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^-before\n\+hello\n\\ No newline at end of file$/m);
    expect(asked.map((a) => [a.label, a.tool])).toEqual([
      ["[orch]", "agent"],
      ["[echo@devbox via demo-1 depth 1]", "write"],
    ]);
    expect(asked[0]?.summary).toContain(
      `host devbox is reached through ssh ${userInfo().username}@127.0.0.1 port ${server.port}; its questions come labelled @devbox`,
    );
    expect(asked[0]?.summary).toContain(`launch demo on host devbox in ${remote.workspace}`);

    const held = await client.callTool("agent", { agent: "demo", prompt: "hold over-ssh", host: "devbox", background: true });
    const name = (held.data as { name: string }).name;
    const running = await jobInState(stack, name, /^running$/);
    expect(alive(running.pid as number)).toBe(true);
    // Its pane, seen here through venom-orch attach (a new ssh bridge) in a terminal; C-b d detaches.
    await attachSeesThenDetaches(stack, name, /over-ssh/);
    expect(alive(running.pid as number)).toBe(true);
    client.close();
    stack.orch.proc.kill("SIGKILL");
    await expect.poll(() => alive(running.pid as number), { timeout: 20_000 }).toBe(false);
  });

  it("an unknown host key or a refused login fails the job with ssh's own words", async () => {
    const server = await startSshd();
    const remote = await remoteHost();
    const stack = await startStack({
      config:
        sshHost("unknown", server, remote, { known_hosts: server.emptyKnownHosts }) +
        sshHost("stranger", server, remote, { identity: server.strangerKey }),
    });
    const { client } = await stack.person();
    const unknown = await client.callTool("agent", { agent: "demo", prompt: "say hi", host: "unknown" });
    expect(unknown.error?.message).toMatch(/^demo-1 failed: host unknown unreachable: .*Host key verification failed\.$/);
    const stranger = await client.callTool("agent", { agent: "demo", prompt: "say hi", host: "stranger" });
    expect(stranger.error?.message).toMatch(/^demo-2 failed: host stranger unreachable: .*Permission denied \(publickey\)\.$/);
    expect(jobs(stack).map((j) => [j.host, j.state])).toEqual([
      ["unknown", "failed"],
      ["stranger", "failed"],
    ]);
    expect(remote.runs()).toEqual([]);
    client.close();
  });
});
