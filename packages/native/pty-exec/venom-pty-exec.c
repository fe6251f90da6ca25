// venom-pty-exec: what a venom-mux pane's program (and a venom-echo run's
// process) starts under:
//   venom-pty-exec RECORD <program> <args…>
// It waits until the file RECORD exists: the delegation record its daemon
// writes once it knows the new process's pid (packages/native/src/start-gate.ts).
// A daemon tells its delegates from the owner by that record (the process's
// ancestry, by pid and start time), and Node can only write it after spawn:
// without the wait, a process of the pane that connected before the daemon
// got to write it (the daemon descheduled, in a GC pause) was taken for the
// owner. A record that never comes (the daemon failed) leaves the program
// unstarted: it exits 126 after a few seconds.
//
// On a terminal it then gives it the settings tmux gives a new pane (what
// `stty -brkint -ixany -imaxbel -hupcl eol undef eol2 undef` sets: node-pty
// leaves brkint, ixany, imaxbel and hupcl on and eol/eol2 at 0xff), and
// execvp's the program with exactly its argv and environment: the same pid,
// process group and session, nothing left behind. It replaces a one-line
// shell that did the same with stty, which cost a pane's start two more
// processes (start-gate.ts keeps that shell for a build without a C compiler).
//
// It closes every fd above stderr first (../include/close-fds.h): the program
// holds none of venom-mux's, such as another pane's pty master.
//
// Like that shell, it leaves the settings alone when stdin is no terminal, and
// when the program cannot run it says why on stderr (the pane's screen) and
// exits 127 (not found) or 126 (found but not runnable).
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../include/close-fds.h"

#define CANNOT_RUN 126
#define NOT_FOUND 127
/* How long the record may take, checked every POLL_NS: a daemon writes it within a millisecond of the spawn, unless stalled. */
#define RECORD_WAIT_NS 10000000000LL
#define POLL_NS 200000L

static int recorded(const char *record) {
  struct timespec pause = {0, POLL_NS};
  for (long long waited = 0; waited < RECORD_WAIT_NS; waited += POLL_NS) {
    if (access(record, F_OK) == 0) return 1;
    nanosleep(&pause, NULL);
  }
  return access(record, F_OK) == 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fputs("usage: venom-pty-exec RECORD PROGRAM [ARG...]\n", stderr);
    return 2;
  }
  if (!recorded(argv[1])) {
    fprintf(stderr, "venom: %s was never recorded by its daemon: not started\n", argv[2]);
    return CANNOT_RUN;
  }
  struct termios settings;
  if (tcgetattr(STDIN_FILENO, &settings) == 0) {
    settings.c_iflag &= ~(tcflag_t)(BRKINT | IXANY | IMAXBEL);
    settings.c_cflag &= ~(tcflag_t)HUPCL;
    settings.c_cc[VEOL] = _POSIX_VDISABLE;
    settings.c_cc[VEOL2] = _POSIX_VDISABLE;
    tcsetattr(STDIN_FILENO, TCSANOW, &settings);
  }
  close_fds_above_stderr();
  execvp(argv[2], argv + 2);
  int error = errno;
  fprintf(stderr, "venom: %s: %s\n", argv[2], error == ENOENT ? "not found" : strerror(error));
  return error == ENOENT ? NOT_FOUND : CANNOT_RUN;
}
