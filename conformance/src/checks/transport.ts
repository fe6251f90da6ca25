import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { DaemonStatusResultSchema } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import { expect, expectResult, fail } from "../verdict.js";

const SOCKET_RULE = securityModel(
  "Network and protocol",
  "The normal server transport is a local Unix socket at `$SCV_HOME/state/server.sock` (default `~/.scv/state/server.sock`) with mode `0600` in a mode `0700` directory.",
);
const DESIGN_SOCKET = design("Wire protocol", "Transport: a Unix socket (mode 0600 in a 0700 directory), or stdio for one-shot clients.");

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");
const uid = () => process.getuid?.() ?? -1;

/** Owned by us, with no access for group or others. */
function privateMode(path: string, what: string, exact: number): string {
  const stat = lstatSync(path);
  expect(stat.uid === uid(), `${what} ${path} is owned by uid ${stat.uid}, not by the daemon's user (${uid()})`);
  expect((stat.mode & 0o777) === exact, `${what} ${path} has mode ${octal(stat.mode)}, expected ${octal(exact)}`);
  return `${what} mode ${octal(stat.mode)}`;
}

/** Inodes of the network sockets a process may be listening on: TCP in LISTEN, any bound UDP (from its own namespace's tables). */
function listeningInodes(pid: number): Map<string, string> {
  const found = new Map<string, string>();
  for (const table of ["tcp", "tcp6", "udp", "udp6"]) {
    for (const row of readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)) {
      const fields = row.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (inode && inode !== "0" && (table.startsWith("udp") || state === "0A")) found.set(inode, `${table} ${local}`);
    }
  }
  return found;
}

export const transportChecks: readonly Check[] = [
  {
    id: "transport/socket-mode",
    level: "MUST",
    requirement: SOCKET_RULE,
    also: [DESIGN_SOCKET],
    expected: "the daemon's socket is a Unix socket owned by its user with mode 0600",
    async run(ctx) {
      expect(lstatSync(ctx.target.socket).isSocket(), `${ctx.target.socket} is not a Unix socket`);
      return privateMode(ctx.target.socket, "socket", 0o600);
    },
  },
  {
    id: "transport/dir-mode",
    level: "MUST",
    requirement: SOCKET_RULE,
    also: [DESIGN_SOCKET],
    expected: "the directory holding the socket is owned by the daemon's user with mode 0700",
    async run(ctx) {
      return privateMode(dirname(ctx.target.socket), "socket directory", 0o700);
    },
  },
  {
    id: "transport/no-remote-listen",
    level: "MUST",
    requirement: rfc0008("Local daemon and plugins", "Remote listen is absent."),
    also: [
      securityModel(
        "Network and protocol",
        "It is a trusted local-user interface, including daemon management; it is not a remotely authenticated network service.",
      ),
    ],
    expected: "the daemon's process (its pid from daemon/status) holds no listening TCP socket and no bound UDP socket",
    async run(ctx) {
      const { client } = await ctx.session();
      const { pid } = expectResult(await client.request("daemon/status"), DaemonStatusResultSchema, "daemon/status");
      const listening = listeningInodes(pid);
      const held = readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
        } catch {
          return [];
        }
      });
      const open = held.flatMap((link) => listening.get(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? "") ?? []);
      expect(open.length === 0, `the daemon (pid ${pid}) listens on the network: ${open.join(", ")}`);
      return `pid ${pid} holds ${held.length} descriptors, none a network listener`;
    },
  },
  {
    id: "instance/private-files",
    level: "MUST",
    requirement: securityModel(
      "Responsible operation",
      "User configuration may contain provider credentials and must be mode 0600 on Unix.",
    ),
    also: [design("Instances", "Directories mode 0700, files 0600, writes atomic (temp file + rename in the same directory).")],
    expected: "every directory under the instance home (VENOM_HOME) is 0700 and every file 0600: logs, config, state and sockets",
    async run(ctx) {
      const home = ctx.target.home;
      if (!home) fail("no instance home to inspect: pass --home (the daemon's VENOM_HOME)");
      const loose: string[] = [];
      let seen = 0;
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          if (entry.isSymbolicLink()) continue;
          seen++;
          const mode = lstatSync(path).mode & 0o777;
          if ((mode & 0o077) !== 0) loose.push(`${path} ${octal(mode)}`);
          if (entry.isDirectory()) walk(path);
        }
      };
      const rootMode = lstatSync(home).mode & 0o777;
      if ((rootMode & 0o077) !== 0) loose.push(`${home} ${octal(rootMode)}`);
      walk(home);
      expect(loose.length === 0, `open to group or others: ${loose.slice(0, 10).join(", ")}`);
      return `${seen} entries under ${home}, none open to group or others`;
    },
  },
];
