import { parseMarkers } from "@venom/proto";
import { type ClientOptions, VenomClient } from "../../client.js";
import { startDaemon } from "../../daemon-start.js";
import type { VenomHome } from "../../home.js";
import type { CliApp } from "../app.js";
import { terminalGate } from "../gate.js";
import { cliChecks } from "../replies.js";
import { workspaceHere } from "../start-dir.js";

/** Nothing answers on the app's socket: says where it looked and how to start the daemon. */
export class NotRunning extends Error {
  /** `also`: another way to start it, said after `start`. */
  constructor(program: string, socket: string, also = "") {
    super(`no ${program} daemon is running on ${socket}; \`${program} start\` starts one${also}`);
  }
}

/** A command would have started a daemon, which needs the owner context (conformance/spec/security-model.txt, "Delegated runs"). */
export class OwnerContextRequired extends Error {}

export interface ConnectOptions extends Omit<Partial<ClientOptions>, "client" | "gate"> {
  /**
   * As `tmux new` starts its server: when no daemon runs in the home, start one, say so through this
   * (stderr), and connect to it. Its workspace is `workspace`, else the repository holding this directory.
   */
  startWith?: { err(line: string): void };
}

/** Connect a CLI command to its app's daemon; approvals go to the terminal when there is one. */
export async function connectCli(app: CliApp, home: VenomHome, options: ConnectOptions = {}): Promise<VenomClient> {
  const { startWith, ...clientOptions } = options;
  try {
    return await connectOnce(app, home, clientOptions);
  } catch (error) {
    if (!(error instanceof NotRunning) || !startWith) throw error;
    await startForCommand(app, home, clientOptions.workspace, startWith);
    return connectOnce(app, home, clientOptions);
  }
}

/**
 * Start the daemon for a command that found none running, as `tmux new` starts its server, and say so through
 * `say` (stderr). Its workspace is `workspace`, else the repository holding this directory. Starting a daemon is
 * the owner's: refused under a delegation (conformance/spec/security-model.txt, "Delegated runs").
 */
export async function startForCommand(
  app: CliApp,
  home: VenomHome,
  workspace: string | undefined,
  say: { err(line: string): void },
): Promise<void> {
  const { depth } = parseMarkers(process.env);
  if (depth > 0)
    throw new OwnerContextRequired(
      `refused: no ${app.program} daemon is running on ${home.socket(app.app)}, and starting one needs the owner context: this process runs under a Venom delegation (depth ${depth})`,
    );
  home.ensure();
  const dir = workspace ?? workspaceHere();
  const { pid } = await startDaemon({ main: process.argv[1] as string, app: app.app, home, workspace: dir });
  say.err(`${app.program}: no daemon was running: started one (pid ${pid}) for the workspace ${dir}`);
}

async function connectOnce(app: CliApp, home: VenomHome, options: Omit<ConnectOptions, "startWith">): Promise<VenomClient> {
  const socket = home.socket(app.app);
  try {
    // --yes (autoApprove) means nobody is asked, on a terminal too: a gate would be asked instead of it.
    const gate = options.autoApprove ? undefined : terminalGate(app.program);
    return await VenomClient.connect(socket, {
      client: { name: app.program, version: app.version },
      ...(gate ? { gate } : {}),
      checks: cliChecks,
      ...options,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED") throw new NotRunning(app.program, socket);
    throw error;
  }
}
