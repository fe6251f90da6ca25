// What venom-pty-exec and venom-sandbox do last before they exec a program:
// close every fd above stderr, so the program holds exactly fds 0-2 of its
// own (docs/security-model.md, "Descriptors"). Whatever the daemon that
// started the launcher failed to mark close-on-exec (a pty master of another
// pane, an fd the daemon itself inherited) never reaches the program.
#ifndef VENOM_CLOSE_FDS_H
#define VENOM_CLOSE_FDS_H

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// The same number on every architecture Venom supports (x86_64, aarch64).
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

static void close_fds_above_stderr(void) {
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
  // A kernel before Linux 5.9 has no close_range: every fd the limit allows is closed one by one.
  struct rlimit limit;
  long end = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? (long)limit.rlim_cur : 1L << 20;
  for (long fd = 3; fd < end; fd++) close((int)fd);
}

#endif
