import { ptyExecPath } from "./built-programs.js";

// How a daemon starts a process it records as a delegation (a venom-mux pane, a venom-echo run): held until its
// record exists. A daemon tells a delegate from the owner by its ancestry (the nearest recorded ancestor, by pid and
// start time), and the record can only be written once spawn has given the pid; a process that connected first,
// having cleared its environment's markers, was taken for the owner. Node cannot start a child paused, so the child
// waits for the file itself.

/**
 * A pty's settings as tmux gives a new pane (venom-pty-exec sets the same): node-pty leaves brkint, ixany, imaxbel
 * and hupcl on and eol/eol2 at 0xff, which programs that check them (or a stray 0xff byte) notice. The record is
 * waited for first, for up to 10 s, as venom-pty-exec does.
 */
const WAIT_THEN_EXEC =
  'r=$1; shift; i=0; while [ ! -e "$r" ]; do [ $i -ge 1000 ] && { echo "venom: $1 was never recorded by its daemon: not started" >&2; exit 126; }; sleep 0.01; i=$((i+1)); done; ' +
  'stty -brkint -ixany -imaxbel -hupcl eol undef eol2 undef 2>/dev/null; exec "$@"';

/**
 * What to spawn to run `file` with `args` once the file `record` exists, with tmux's settings on a pty:
 * venom-pty-exec (packages/native's build compiles it with the system `cc`); or, where the build had no C compiler,
 * a one-line shell doing the same with stty, two more processes (some 3 ms) per start. Either way the program keeps
 * the pid, process group and session spawn gave, and a program that cannot run exits 127 or 126.
 */
export function afterRecord(
  record: string,
  file: string,
  args: readonly string[],
  helper = ptyExecPath(),
): { file: string; args: string[] } {
  return helper
    ? { file: helper, args: [record, file, ...args] }
    : { file: "/bin/sh", args: ["-c", WAIT_THEN_EXEC, "sh", record, file, ...args] };
}
