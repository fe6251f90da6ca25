import { constants, readFileSync, readSync } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { IPty } from "node-pty";

/** At most this much is read from a pty at its end: a program's background child may keep printing into it. */
const TAIL_LIMIT = 1024 * 1024;

/**
 * Keep the end of a pty's output that node-pty would drop. When a pty's
 * program exits, node-pty (1.1) waits 200 ms for the pty's stream to close and
 * then destroys it, with whatever it had not read yet: the end of a flood
 * whose pty the screen model had paused, often the lines a user wants most
 * (the last line of `seq 1 30000` was lost in about half the runs). So the
 * stream's destroy first hands on what the stream still buffers and what the
 * kernel still holds for the pty, read at once without blocking and bounded.
 * It reaches node-pty's stream and fd by their field names: if a later
 * node-pty renames them this does nothing, and panes.test.ts › "the end of a
 * flood is kept…" fails.
 */
export function keepTailAtExit(term: IPty, onData: (data: string) => void): void {
  const internals = term as unknown as { _socket?: Readable & { _readableState?: { decoder?: StringDecoder | null } }; _fd?: number };
  const socket = internals._socket;
  const fd = internals._fd;
  if (!socket || typeof fd !== "number") return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    if (!socket.destroyed && nonBlocking(fd)) {
      for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) onData(String(chunk));
      // The stream's own decoder, so a character split across the last read and these is whole.
      drain(fd, socket._readableState?.decoder ?? new StringDecoder("utf8"), onData);
    }
    return destroy(error);
  };
}

/** What the kernel holds for the pty now: read until EAGAIN (nothing more yet) or EIO (no one has the pty open any more). */
function drain(fd: number, decoder: StringDecoder, onData: (data: string) => void): void {
  const buffer = Buffer.alloc(64 * 1024);
  for (let total = 0; total < TAIL_LIMIT; ) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      break;
    }
    if (n === 0) break;
    total += n;
    const text = decoder.write(buffer.subarray(0, n));
    if (text !== "") onData(text);
  }
}

/** Whether a read of `fd` returns at once when there is nothing to read: node-pty and libuv both make a pty so, and a read that blocked here would stall every pane. */
function nonBlocking(fd: number): boolean {
  try {
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & constants.O_NONBLOCK) !== 0;
  } catch {
    return false;
  }
}
