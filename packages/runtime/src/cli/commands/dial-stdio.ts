import { Socket } from "node:net";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { assertServerIsUs } from "../../client.js";
import type { VenomHome } from "../../home.js";
import type { CliApp } from "../app.js";
import { type Command, Exit, UsageError } from "../command.js";
import { NotRunning, startForCommand } from "./connect.js";

/**
 * The daemon's socket on this process's stdin and stdout, byte for byte, as `docker system dial-stdio`: what
 * reaches a daemon over another transport (`ssh host venom-mux dial-stdio`) arrives through its one socket. The
 * bridge reads no message: the daemon checks this process as it checks any peer (its uid, markers and ancestry)
 * and enforces every limit itself, and no listener is added anywhere.
 */
export function dialStdioCommand(app: CliApp): Command {
  return {
    name: "dial-stdio",
    summary:
      "connect stdin and stdout to the daemon's socket, byte for byte, for a transport such as ssh (--start: start the daemon first)",
    usage:
      "dial-stdio [--start [--workspace DIR]]\n\n" +
      `What this process reads on stdin goes to the socket of ${app.program}'s daemon in VENOM_HOME; what the daemon\n` +
      "sends comes out on stdout. The daemon checks this process as any peer: run by you, outside Venom, it is the\n" +
      "owner; run from an agent's pane or under Venom's delegation markers, a delegate. When stdin ends the socket is\n" +
      "half-closed; the command exits 0 once the daemon has closed the connection and stdout is written. With no\n" +
      "daemon running it exits 4 (--start starts one first, as `start` does, which needs the owner context).",
    management: false,
    options: { start: { type: "boolean" }, workspace: { type: "string" } },
    async execute({ home, values, positionals, io }) {
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      if (values.workspace !== undefined && values.start !== true) {
        throw new UsageError("--workspace is the workspace of the daemon --start starts: give --start too");
      }
      let socket: DaemonSocket;
      try {
        socket = await dial(app, home);
      } catch (error) {
        if (!(error instanceof NotRunning) || values.start !== true) throw error;
        await startForCommand(app, home, values.workspace === undefined ? undefined : resolve(values.workspace as string), io);
        socket = await dial(app, home);
      }
      await bridge(socket, process.stdin, process.stdout);
      return Exit.ok;
    },
  };
}

/**
 * The daemon's socket, as net.Socket but for one error: a write that finds the daemon closed (EPIPE) ends the
 * writing only. net.Socket destroys itself on any write error, closing its fd before the lines the daemon sent
 * before it closed (the error saying why it closed) are read from it; reading goes on here until the daemon's end.
 */
class DaemonSocket extends Socket {
  #refused = false;

  override _write(chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    super._write(chunk, encoding, this.#unlessClosed(callback));
  }

  override _writev(chunks: { chunk: unknown; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    super._writev?.(chunks, this.#unlessClosed(callback));
  }

  #unlessClosed(callback: (error?: Error | null) => void): (error?: Error | null) => void {
    return (error) => {
      if ((error as NodeJS.ErrnoException | null | undefined)?.code !== "EPIPE") return callback(error);
      // Said once: nothing more can reach the daemon.
      if (!this.#refused) {
        this.#refused = true;
        this.emit("writes-refused");
      }
      callback();
    };
  }
}

/** A connection to the app's socket, whose listener the kernel says runs as this uid. */
async function dial(app: CliApp, home: VenomHome): Promise<DaemonSocket> {
  const path = home.socket(app.app);
  const socket = new DaemonSocket();
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
      socket.connect(path);
    });
    socket.removeAllListeners("error");
    // Nothing a client sends may reach a socket planted by another user, as for every CLI command.
    assertServerIsUs(socket, path);
    return socket;
  } catch (error) {
    socket.destroy();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED")
      throw new NotRunning(app.program, path, ` (or \`${app.program} dial-stdio --start\`)`);
    throw error;
  }
}

/**
 * Copy bytes both ways until the daemon closes the connection. pipe() carries backpressure each way: a stdout
 * nobody reads stops the reading of the socket, so what the daemon sends waits in its own bounded queue (it cuts
 * off a peer that stops reading) rather than in this process; a daemon that stops reading stops the reading of
 * stdin. The end of stdin half-closes the socket (pipe ends it), so what the daemon still sends comes through.
 * Settles once the daemon closed and everything it sent is written to stdout.
 */
function bridge(socket: DaemonSocket, input: Readable, output: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    input.pipe(socket);
    // stdout stays open: the process ends it when it exits.
    socket.pipe(output, { end: false });
    // Nothing more can reach the daemon: stdin is read no further.
    const stopInput = () => {
      input.unpipe(socket);
      input.destroy();
    };
    socket.once("writes-refused", stopInput);
    // A stdin that cannot be read has ended: what was read went to the daemon, which now sees the end.
    input.on("error", () => socket.end());
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A daemon that closes with bytes of ours unread resets the connection (as after a frame it refused): that is
      // its close, and what it sent before it was read first.
      if (error.code !== "ECONNRESET") failure = error;
    });
    socket.once("close", () => {
      stopInput();
      // Called once what was written before it is flushed.
      output.write("", () => (failure ? reject(failure) : resolve()));
    });
  });
}
