import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { terminalLine } from "@venom/proto";
import { type ClientOptions, VenomClient } from "@venom/runtime";
import { transportArgv } from "./host-argv.js";
import type { HostConfig } from "./host-config.js";
import { passedEnv } from "./notify.js";

// Other hosts (docs/remote.md): a host is reached through a child process that runs `venom-mux dial-stdio` there,
// OpenSSH's `ssh` or the argv the user gave; its stdin and stdout carry venom/1 to that host's venom-mux. Nothing
// listens anywhere: the transport is the user's own, with its own authentication and host keys.

/**
 * How the host is reached, for the person approving a launch there: ssh's destination and port, or the command, its
 * middle cut past 160 characters so that a launch's whole summary (the dispatcher keeps 512) still shows this line.
 */
export function transportShown(host: HostConfig): string {
  if (host.command) return terminalLine(host.command.join(" "), 160);
  return `ssh ${terminalLine(host.ssh as string, 255)}${host.port !== undefined ? ` port ${host.port}` : ""}`;
}

/** What of venom-orch's environment a transport gets beside the base set: ssh's agent and home, never a credential. */
const TRANSPORT_VARS = ["HOME", "SSH_AUTH_SOCK"];
/** How much of the transport's stderr is kept: ssh's own words on why it failed. */
const STDERR_KEPT = 2048;

/** A live transport to a host: its venom-mux connection, and the transport's own last words. */
export interface HostLink {
  client: VenomClient;
  /** The transport's stderr (bounded, escaped on one line): an unknown host key or a failed login is ssh's message. */
  stderr(): string;
  /** Settles when the transport's process has exited. */
  exited: Promise<void>;
  /** The transport's output ended or its process exited: nothing more comes from the host. */
  gone(): boolean;
  close(): void;
}

/** The host is not reachable, or its bridge ended: what its transport said, escaped. */
class HostUnreachable extends Error {
  override readonly name = "HostUnreachable";
}

/** The host answered, and is not one this venom-orch works with. */
class HostRefused extends Error {
  override readonly name = "HostRefused";
}

/**
 * Start the transport and speak venom/1 over it, as over a socket (VenomClient.over): the remote venom-mux binds the
 * job's pane to this connection, so the transport's end is the pane's. A transport that ends before the hello is
 * answered is HostUnreachable, with what it said.
 */
export async function dialHost(name: string, host: HostConfig, options: ClientOptions): Promise<HostLink> {
  const [file, ...args] = transportArgv(host);
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(file as string, args, { stdio: "pipe", env: passedEnv(process.env, TRANSPORT_VARS) });
  } catch (error) {
    throw new HostUnreachable(`host ${name} unreachable: ${(error as Error).message}`);
  }
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("close", () => resolve());
    child.once("error", (error) => {
      stderr = (stderr + error.message).slice(-STDERR_KEPT);
      resolve();
    });
  });
  // A transport that died leaves writes to its stdin failing: the connection's close says so, not an unhandled error.
  child.stdin.on("error", () => undefined);
  let gone = false;
  const end = () => {
    gone = true;
  };
  child.stdout.once("end", end).once("close", end);
  void exited.then(end);
  const said = () => terminalLine(stderr.trim(), 600);
  const link = (client: VenomClient): HostLink => ({
    client,
    stderr: said,
    exited,
    gone: () => gone,
    close: () => {
      client.close();
      child.kill("SIGTERM");
    },
  });
  const ended = exited.then(() => {
    throw new HostUnreachable(`host ${name} unreachable${said() ? `: ${said()}` : ""}`);
  });
  let client: VenomClient;
  try {
    client = await Promise.race([VenomClient.over(child.stdout, child.stdin, options), ended]);
  } catch (error) {
    child.kill("SIGTERM");
    if (error instanceof HostUnreachable) throw error;
    await settled(exited);
    // The transport ended first: its words say why, not the connection's close they caused.
    const why = gone ? said() : [(error as Error).message, said()].filter(Boolean).join(": ");
    throw new HostUnreachable(`host ${name} unreachable${why ? `: ${why}` : ""}`);
  }
  // What it said while connecting (venom-mux started there, a banner) is not why it ends later.
  stderr = "";
  try {
    refuseOlder(name, client.hello.server, options.client);
  } catch (error) {
    link(client).close();
    throw error;
  }
  return link(client);
}

/** How long a transport that ended gets to finish saying why on stderr. */
const LAST_WORDS_MS = 1000;

async function settled(exited: Promise<void>): Promise<void> {
  await Promise.race([exited, new Promise((r) => setTimeout(r, LAST_WORDS_MS))]);
}

/**
 * The host's venom-mux must speak what this venom-orch does: one older than this release is refused with both
 * versions named, before anything is asked of it (docs/remote.md, "Failure").
 */
function refuseOlder(name: string, remote: { name: string; version: string }, local: { name: string; version: string }): void {
  const shown = (text: string) => terminalLine(text, 64);
  if (remote.name !== "venom-mux") {
    throw new HostRefused(
      `refused: host ${name}'s bridge reached ${shown(remote.name)}, not venom-mux: check its venom setting or command`,
    );
  }
  if (compareVersions(remote.version, local.version) < 0) {
    throw new HostRefused(
      `refused: host ${name} runs venom-mux ${shown(remote.version)}, older than this ${local.name} ${local.version}: update Venom on ${name}`,
    );
  }
}

/** Release versions compared number by number (1.10.0 after 1.9.2); a part that is no number counts as 0. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/, 3).map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Why a host's job failed, for its record: when its transport ended, `host NAME unreachable` and what the
 * transport said (ssh's own words); otherwise the error, named with the host.
 */
export async function hostUnreachable(name: string, error: unknown, link: HostLink | undefined): Promise<string> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 600);
  if (error instanceof HostUnreachable || error instanceof HostRefused) return message;
  if (!link?.gone()) return `host ${name}: ${message}`;
  await settled(link.exited);
  return `host ${name} unreachable${link.stderr() ? `: ${link.stderr()}` : ""}`;
}
