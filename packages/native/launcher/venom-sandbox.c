// venom-sandbox: the Landlock sandbox launcher (docs/security-model.md), started by Venom
// in place of a program:
//   VENOM_SANDBOX_RULESET=<ruleset> VENOM_SANDBOX_ENV_<name>=<value>… venom-sandbox <program> <args…>
// The ruleset is planned by @venom/runtime (src/sandbox/plan.ts, which also
// writes this format, and which the Node launcher there reads the same way);
// this program only applies it: for each layer it creates a ruleset handling
// the layer's rights, grants each path rule, and restricts itself, under
// no_new_privs. Then it execve's the program with exactly its argv and with
// the VENOM_SANDBOX_ENV_ variables, renamed back, as its whole environment: the
// same pid, process group and session, and every descendant inherits the
// restriction; the program holds no fd above stderr (../include/close-fds.h).
// It never runs the program unconfined: any failure exits 126 naming what
// failed (127 when the program is not found), as a shell does.
//
// The ruleset, one item a line:
//   layer <abi> <handled fs> <handled net> <scoped> <rights allowed on a file>
//   <allowed access> <path, percent-encoded>
// numbers in decimal; the rules after a layer line belong to it.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../include/close-fds.h"

// The syscall numbers are the same on every architecture Venom supports (x86_64, aarch64).
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define LANDLOCK_CREATE_RULESET_VERSION 1u
#define LANDLOCK_RULE_PATH_BENEATH 1

#define CANNOT_CONFINE 126
#define NOT_FOUND 127

static const char RULESET_VAR[] = "VENOM_SANDBOX_RULESET";
static const char ENV_PREFIX[] = "VENOM_SANDBOX_ENV_";

// Declared here rather than taken from <linux/landlock.h>, whose version on
// the build machine may predate fields the plan uses; the kernel accepts the
// longer struct as long as the fields it does not know are zero.
struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

struct layer {
  int abi;
  struct ruleset_attr handled;
  uint64_t file_rights;
};

extern char **environ;

static void fail(int code, const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  dprintf(2, "venom-sandbox: %s\n", message);
  exit(code);
}

static const char *errno_name(int error) {
  const char *name = strerrorname_np(error);
  return name ? name : "unknown error";
}

static void cannot_confine(const char *what) {
  fail(CANNOT_CONFINE, "cannot confine the process: %s failed: %s", what, errno_name(errno));
}

// A name the program or the plan chose, quoted for a terminal: control bytes, quotes and backslashes escaped.
static const char *quoted(const char *text) {
  static char out[4 * 256 + 3];
  size_t n = 0;
  out[n++] = '"';
  for (const unsigned char *p = (const unsigned char *)text; *p && n < sizeof out - 6; p++) {
    if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\') n += (size_t)snprintf(out + n, 5, "\\x%02x", *p);
    else out[n++] = (char)*p;
  }
  out[n++] = '"';
  out[n] = '\0';
  return out;
}

static uint64_t number(char **cursor, const char *line) {
  char *end;
  errno = 0;
  unsigned long long value = strtoull(*cursor, &end, 10);
  if (errno != 0 || end == *cursor || (*end != ' ' && *end != '\0')) fail(CANNOT_CONFINE, "malformed ruleset line: %s", quoted(line));
  *cursor = *end == ' ' ? end + 1 : end;
  return value;
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `text` in place (a path may hold any byte but NUL, newline included).
static char *decoded(char *text) {
  char *out = text;
  for (char *in = text; *in; in++) {
    if (*in != '%') {
      *out++ = *in;
      continue;
    }
    int high = hex(in[1]), low = high < 0 ? -1 : hex(in[2]);
    if (low < 0 || (high == 0 && low == 0)) fail(CANNOT_CONFINE, "malformed path in ruleset: %s", quoted(text));
    *out++ = (char)(high * 16 + low);
    in += 2;
  }
  *out = '\0';
  return text;
}

static void allow_path(int ruleset, const struct layer *layer, uint64_t access, const char *path) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) fail(CANNOT_CONFINE, "cannot confine the process: open %s failed: %s", quoted(path), errno_name(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) cannot_confine("fstat");
  // The kernel refuses directory-only rights on a file.
  struct path_beneath_attr rule = {
    .allowed_access = S_ISDIR(st.st_mode) ? access : access & layer->file_rights,
    .parent_fd = fd,
  };
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    fail(CANNOT_CONFINE, "cannot confine the process: landlock_add_rule %s failed: %s", quoted(path), errno_name(errno));
  }
  close(fd);
}

static void restrict_to(int ruleset) {
  if (ruleset < 0) return;
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) cannot_confine("landlock_restrict_self");
  close(ruleset);
}

// Each layer is one Landlock domain on top of the last: the process keeps only what every layer allows.
static void confine(const char *plan, int abi) {
  char *text = strdup(plan);
  if (!text) cannot_confine("strdup");
  int ruleset = -1, layers = 0;
  struct layer layer = {0};
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *cursor = line;
    if (strncmp(line, "layer ", 6) == 0) {
      restrict_to(ruleset);
      cursor += 6;
      layer.abi = (int)number(&cursor, line);
      layer.handled.handled_access_fs = number(&cursor, line);
      layer.handled.handled_access_net = number(&cursor, line);
      layer.handled.scoped = number(&cursor, line);
      layer.file_rights = number(&cursor, line);
      if (layer.abi > abi) {
        fail(CANNOT_CONFINE, "cannot confine the process: the kernel's Landlock ABI %d is older than the ABI %d the profile was planned for", abi,
             layer.abi);
      }
      ruleset = (int)syscall(SYS_landlock_create_ruleset, &layer.handled, sizeof layer.handled, 0);
      if (ruleset < 0) cannot_confine("landlock_create_ruleset");
      layers++;
    } else {
      if (ruleset < 0) fail(CANNOT_CONFINE, "malformed ruleset: a rule before any layer");
      uint64_t access = number(&cursor, line);
      allow_path(ruleset, &layer, access, decoded(cursor));
    }
  }
  if (layers == 0) fail(CANNOT_CONFINE, "malformed ruleset: no layer");
  restrict_to(ruleset);
  free(text);
}

// The program's environment: every VENOM_SANDBOX_ENV_<name>=<value> of ours as <name>=<value>, nothing else.
static char **program_env(void) {
  size_t count = 0;
  for (char **e = environ; *e; e++) count++;
  char **env = calloc(count + 1, sizeof *env);
  if (!env) cannot_confine("calloc");
  size_t n = 0, prefix = strlen(ENV_PREFIX);
  for (char **e = environ; *e; e++) {
    if (strncmp(*e, ENV_PREFIX, prefix) == 0) env[n++] = *e + prefix;
  }
  return env;
}

static const char *env_value(char **env, const char *name) {
  size_t length = strlen(name);
  for (char **e = env; *e; e++) {
    if (strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
  }
  return NULL;
}

// execvp(3)'s search, run after the restriction (so the program found is one the sandbox lets run),
// in the program's PATH, never the launcher's.
static void exec(char **argv, char **env) {
  const char *file = argv[0];
  if (strchr(file, '/')) {
    execve(file, argv, env);
    fail(errno == ENOENT || errno == ENOTDIR ? NOT_FOUND : CANNOT_CONFINE, "%s: %s", quoted(file),
         errno == ENOENT || errno == ENOTDIR ? "no such program" : errno_name(errno));
  }
  const char *path = env_value(env, "PATH");
  char *dirs = strdup(path ? path : "/usr/bin:/bin");
  if (!dirs) cannot_confine("strdup");
  int denied = 0;
  for (char *dir = dirs, *next; dir; dir = next) {
    next = strchr(dir, ':');
    if (next) *next++ = '\0';
    char *candidate;
    if (asprintf(&candidate, "%s/%s", *dir ? dir : ".", file) < 0) cannot_confine("asprintf");
    execve(candidate, argv, env);
    if (errno != ENOENT && errno != ENOTDIR && denied == 0) denied = errno;
    free(candidate);
  }
  if (denied) fail(CANNOT_CONFINE, "%s: %s", quoted(file), errno_name(denied));
  fail(NOT_FOUND, "%s: no such program", quoted(file));
}

int main(int argc, char **argv) {
  const char *plan = getenv(RULESET_VAR);
  if (argc < 2 || argv[1][0] == '\0' || plan == NULL) {
    fail(CANNOT_CONFINE, "usage: %s=<ruleset> venom-sandbox <program> [args…]", RULESET_VAR);
  }
  char **env = program_env();
  int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) cannot_confine("landlock_create_ruleset");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) cannot_confine("prctl(PR_SET_NO_NEW_PRIVS)");
  confine(plan, abi);
  close_fds_above_stderr();
  exec(argv + 1, env);
}
