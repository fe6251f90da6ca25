import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** A process that exists and is neither a zombie nor dead, as /proc says. */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The resident memory of a process in KiB, as /proc says. */
export function rssKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** The fds a process holds, as /proc lists them, lowest first. */
export function openFds(pid: number): number[] {
  return readdirSync(`/proc/${pid}/fd`)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The program a process runs now, as /proc names it (comm: its first 15 bytes). */
export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * What the sockets a process holds are, as the kernel lists them (/proc/net): "listening" for a Unix socket that
 * accepts, "inet" for any TCP or UDP socket, else "connected".
 */
export function socketsOf(pid: number): string[] {
  const inodes = readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? [];
    } catch {
      return [];
    }
  });
  const table = (file: string, inodeColumn: number) =>
    readFileSync(`/proc/net/${file}`, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((columns) => inodes.includes(columns[inodeColumn] as string));
  const inet = ["tcp", "tcp6", "udp", "udp6"].flatMap((file) => table(file, 9)).map(() => "inet");
  // Flags 00010000: the socket accepts connections (__SO_ACCEPTCON).
  const unix = table("unix", 6).map((columns) => (columns[3] === "00010000" ? "listening" : "connected"));
  return [...inet, ...unix];
}

/** The uid and gid of nobody, the other user tests run servers and files as. */
export const NOBODY = 65534;

/**
 * A server of another uid (nobody) listening on `home`'s socket of `app`, where a client of ours looks (it makes
 * the home's state/ nobody's): it reports every byte it receives and the connection's end, so a test proves a
 * client refuses it before sending a byte. Kill it when done.
 */
export async function impostorDaemon(home: string, app: string): Promise<{ heard(): string; kill(): void }> {
  // nobody must reach state/ to listen there.
  chmodSync(home, 0o711);
  const state = join(home, "state");
  mkdirSync(state, { mode: 0o700 });
  chownSync(state, NOBODY, NOBODY);
  const script = `
    require("node:net").createServer((c) => {
      c.on("data", (d) => process.stdout.write("GOT " + d.length + "\\n"));
      c.on("close", () => process.stdout.write("CLOSED\\n"));
    }).listen(${JSON.stringify(join(state, `${app}.sock`))}, () => process.stdout.write("READY\\n"));`;
  const impostor = spawn("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let heard = "";
  impostor.stdout.on("data", (d) => {
    heard += d;
  });
  const server = { heard: () => heard, kill: () => impostor.kill("SIGKILL") };
  const deadline = Date.now() + 20_000;
  while (!heard.includes("READY")) {
    if (impostor.exitCode !== null || Date.now() > deadline) {
      server.kill();
      throw new Error(`the impostor server did not start: ${heard}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}
