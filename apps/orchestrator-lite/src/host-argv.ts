import type { HostConfig } from "./host-config.js";

// The argv of a host's transport (docs/remote.md), apart from the connection: venom-orch attach builds it too,
// without loading the daemon's client.

/** One argument of the command line ssh hands to the remote user's shell, quoted so that shell takes it as one word. */
function shellWord(arg: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The transport's argv. For ssh: BatchMode (nothing is asked on a terminal nobody watches, a password or an unknown
 * host key included: ssh refuses and says why), never an option that loosens host-key checking, and no secret: the
 * key is a path, the login is ssh's own. The remote command is one string for the remote shell, each word quoted.
 */
export function transportArgv(host: HostConfig): string[] {
  if (host.command) return [...host.command];
  const remote = [host.venom ?? "venom-mux", "dial-stdio", "--start", ...(host.workspace ? ["--workspace", host.workspace] : [])];
  return [
    "ssh",
    "-o",
    "BatchMode=yes",
    ...(host.port !== undefined ? ["-p", String(host.port)] : []),
    ...(host.identity ? ["-i", host.identity, "-o", "IdentitiesOnly=yes"] : []),
    ...(host.known_hosts ? ["-o", `UserKnownHostsFile=${host.known_hosts}`] : []),
    "--",
    host.ssh as string,
    remote.map(shellWord).join(" "),
  ];
}
