import { createRequire } from "node:module";
import { NativeError } from "./errors.js";
import { supportedArch } from "./platform.js";

// Lazily loaded libc bindings. koffi is required on first use, not imported
// at module load, so merely importing @venom/native never loads a native
// addon and an unsupported platform is reported as UnsupportedPlatformError
// by the first call instead of as an import failure.

type Koffi = typeof import("koffi");
type TypeObject = import("koffi").TypeObject;
// koffi functions are untyped at the JS boundary; each wrapper module gives
// its calls precise TypeScript signatures.
type NativeFn = (...args: unknown[]) => number;

export interface Libc {
  readonly koffi: Koffi;
  /** `long syscall(long number, ...)`: variadic, pass (type, value) pairs. */
  readonly syscall: NativeFn;
  /** `int prctl(int option, ...)`: variadic, pass (type, value) pairs. */
  readonly prctl: NativeFn;
  readonly getsockopt: NativeFn;
  readonly poll: NativeFn;
  readonly mkdirat: NativeFn;
  readonly renameat: NativeFn;
  readonly unlinkat: NativeFn;
  /** `int fcntl(int fd, int cmd, ...)`: variadic, pass (type, value) pairs. */
  readonly fcntl: NativeFn;
  readonly flock: NativeFn;
  /** `signal(signo, handler)`, with only null (SIG_DFL) as the handler. */
  readonly signal: (signo: number, handler: null) => unknown;
  /** argv and envp are JS string arrays ending in null. */
  readonly execve: (path: string, argv: (string | null)[], envp: (string | null)[]) => number;
  readonly types: {
    /** struct open_how, passed by pointer to openat2, and its size. */
    readonly openHowPtr: TypeObject;
    readonly openHowSize: number;
    /** struct ucred, decoded from the SO_PEERCRED buffer. */
    readonly ucred: TypeObject;
    /** `_Out_ int *`, for prctl(PR_GET_CHILD_SUBREAPER). */
    readonly intOut: ReturnType<Koffi["out"]>;
  };
}

let cached: Libc | undefined;

export function libc(): Libc {
  supportedArch();
  cached ??= loadLibc();
  return cached;
}

function loadLibc(): Libc {
  const koffi = createRequire(import.meta.url)("koffi") as Koffi;
  const lib = openLibc(koffi);

  // Structs are anonymous so they cannot collide with type names registered
  // by other koffi users in the same process.
  const openHow = koffi.struct({ flags: "uint64_t", mode: "uint64_t", resolve: "uint64_t" });
  const ucred = koffi.struct({ pid: "int32_t", uid: "uint32_t", gid: "uint32_t" });
  const pollfd = koffi.struct({ fd: "int", events: "short", revents: "short" });

  return {
    koffi,
    syscall: lib.func("long syscall(long number, ...)"),
    prctl: lib.func("int prctl(int option, ...)"),
    // optval/optlen are Buffers the kernel writes into, so plain pointers suffice.
    getsockopt: lib.func("int getsockopt(int fd, int level, int name, void *optval, void *optlen)"),
    // _Inout_ copies revents back into the JS object after the call.
    poll: lib.func("poll", "int", [koffi.inout(koffi.pointer(pollfd)), "unsigned long", "int"]),
    mkdirat: lib.func("int mkdirat(int dirfd, const char *path, unsigned int mode)"),
    renameat: lib.func("int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)"),
    unlinkat: lib.func("int unlinkat(int dirfd, const char *path, int flags)"),
    fcntl: lib.func("int fcntl(int fd, int cmd, ...)"),
    flock: lib.func("int flock(int fd, int operation)"),
    signal: lib.func("void *signal(int signo, void *handler)"),
    execve: lib.func("int execve(const char *path, const char **argv, const char **envp)"),
    types: {
      openHowPtr: koffi.pointer(openHow),
      openHowSize: koffi.sizeof(openHow),
      ucred,
      intOut: koffi.out(koffi.pointer("int")),
    },
  };
}

function openLibc(koffi: Koffi): ReturnType<Koffi["load"]> {
  try {
    return koffi.load("libc.so.6");
  } catch {
    // Not glibc (e.g. musl). dlopen(NULL) searches the symbols already loaded
    // into node itself, which include whichever libc it was linked against.
    return koffi.load(null);
  }
}

/**
 * Turns libc's "-1 and errno" convention into a thrown NativeError. Must be
 * called immediately after the native call, before anything else can
 * overwrite errno.
 */
export function check(syscall: string, result: number): number {
  if (result < 0) {
    throw new NativeError(syscall, cached?.koffi.errno() ?? 0);
  }
  return result;
}

/**
 * Validates a path for a `const char *` argument. koffi would pass a string
 * with an embedded NUL through truncated at the NUL, silently naming a
 * different file, so such strings are rejected like Node's fs does.
 */
export function cPath(what: string, value: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${what} must be a string`);
  }
  if (value.includes("\0")) {
    throw new TypeError(`${what} must not contain NUL bytes`);
  }
  return value;
}

/**
 * Validates an integer argument (fd, pid, mode, flags) before it reaches C,
 * where a fractional or out-of-range number would be silently converted.
 * The default range is that of a C int; bad fds are left to the kernel (EBADF).
 */
export function cInt(what: string, value: number, min = -0x80000000): number {
  if (!Number.isInteger(value) || value < min || value > 0x7fffffff) {
    throw new TypeError(`${what} must be an integer between ${min} and 2147483647`);
  }
  return value;
}
