// venom-pty-exec: what a venom-mux pane runs in place of its program, on the
// pane's pty:
//   venom-pty-exec <program> <args…>
// It gives the terminal on its stdin the settings tmux gives a new pane (what
// `stty -brkint -ixany -imaxbel -hupcl eol undef eol2 undef` sets: node-pty
// leaves brkint, ixany, imaxbel and hupcl on and eol/eol2 at 0xff), then
// execvp's the program with exactly its argv and environment: the same pid,
// process group and session, nothing left behind. It replaces a one-line
// shell that did the same with stty, which cost a pane's start two more
// processes (apps/multiplexer-lite/src/pty-start.ts keeps that shell for a
// build without a C compiler).
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
#include <unistd.h>

#include "../include/close-fds.h"

#define CANNOT_RUN 126
#define NOT_FOUND 127

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: venom-pty-exec PROGRAM [ARG...]\n", stderr);
    return 2;
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
  execvp(argv[1], argv + 1);
  int error = errno;
  fprintf(stderr, "venom-mux: %s: %s\n", argv[1], error == ENOENT ? "not found" : strerror(error));
  return error == ENOENT ? NOT_FOUND : CANNOT_RUN;
}
