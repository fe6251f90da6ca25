import { readdirSync, readFileSync } from "node:fs";
import { groupMembers } from "@venom/runtime";

/**
 * What the kernel says about the program in front of a pane: the pty's
 * foreground process group (tpgid in /proc/PID/stat of the pane's leader),
 * its command line, and whether it is waiting for input: every thread of the
 * group asleep, and at least one in a call that waits for a file descriptor
 * (read, select, poll, epoll), none in a timed sleep. Nothing here reads the
 * screen: a program cannot make itself look idle by what it prints.
 */

export interface Foreground {
  pid: number;
  argv: string[];
  /** Every thread asleep, one of them waiting on a file descriptor (false when not asked). */
  waiting: boolean;
}

/** Calls that wait for input on a file descriptor, and timed sleeps, by arch (asm/unistd.h). */
const CALLS: Record<string, { input: number[]; sleep: number[] }> = {
  // read, poll, select, pselect6, ppoll, epoll_wait, epoll_pwait, epoll_pwait2 | nanosleep, clock_nanosleep
  x64: { input: [0, 7, 23, 270, 271, 232, 281, 441], sleep: [35, 230] },
  // read, pselect6, ppoll, epoll_pwait, epoll_pwait2 | nanosleep, clock_nanosleep
  arm64: { input: [63, 72, 73, 22, 441], sleep: [101, 115] },
};
/** Longest command line reported, in characters. */
const MAX_ARGV = 4096;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Fields of /proc/PID/stat after the command name (which may hold spaces and parentheses): [0] is the state. */
function statFields(path: string): string[] | undefined {
  const stat = read(path);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The foreground process group of the pane whose session leader is `leader`,
 * or undefined when it cannot be told; whether it waits for input only when
 * `askWaiting` (else `waiting` is false).
 */
export function foreground(leader: number, askWaiting: boolean): Foreground | undefined {
  const tpgid = Number(statFields(`/proc/${leader}/stat`)?.[5]);
  if (!(tpgid > 0)) return undefined;
  const cmdline = read(`/proc/${tpgid}/cmdline`) ?? "";
  const argv = cmdline.slice(0, MAX_ARGV).split("\0").filter(Boolean);
  return { pid: tpgid, argv, waiting: askWaiting && groupWaiting(tpgid) };
}

/**
 * The group's members come from proc.ts's scan of /proc, which every caller
 * in one synchronous run shares: `ls` of 200 panes scanned /proc once per
 * pane (~470 ms with 200 idle panes).
 */
function groupWaiting(pgid: number): boolean {
  const calls = CALLS[process.arch];
  if (!calls) return false;
  let onInput = false;
  for (const { pid } of groupMembers(pgid)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      if (statFields(`/proc/${pid}/task/${tid}/stat`)?.[0] !== "S") return false;
      const call = Number(read(`/proc/${pid}/task/${tid}/syscall`)?.split(" ")[0]);
      if (calls.sleep.includes(call)) return false;
      if (calls.input.includes(call)) onInput = true;
    }
  }
  return onInput;
}
