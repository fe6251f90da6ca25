import { ptyExecPath } from "@venom/native";

/**
 * The settings tmux (and terminal emulators) give a new pane's terminal:
 * node-pty leaves brkint, ixany, imaxbel and hupcl on and eol/eol2 at 0xff,
 * which programs that check them (or a stray 0xff byte) notice.
 */
const SET_TERMIOS = 'stty -brkint -ixany -imaxbel -hupcl eol undef eol2 undef 2>/dev/null; exec "$@"';

/**
 * What to spawn on a pane's pty to run `file` with `args` under those
 * settings: venom-pty-exec (packages/native's build compiles it with the
 * system `cc`), which sets them and execs the program; or, where the build had
 * no C compiler, a one-line shell doing the same with stty, two more processes
 * (some 3 ms) per pane. Either way the program keeps the pid, process group
 * and session the pane knows, and a program that cannot run exits 127 or 126.
 */
export function ptyStart(file: string, args: readonly string[], helper = ptyExecPath()): { file: string; args: string[] } {
  return helper ? { file: helper, args: [file, ...args] } : { file: "/bin/sh", args: ["-c", SET_TERMIOS, "sh", file, ...args] };
}
