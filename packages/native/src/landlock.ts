import { closeSync, constants as fsConstants, openSync } from "node:fs";
import { O_CLOEXEC, O_PATH } from "./constants.js";
import { check, cInt, cPath, libc } from "./libc.js";
import { syscallNumber } from "./syscalls.js";

// Landlock (linux/landlock.h): an unprivileged process restricts itself, and
// everything it later starts, to the rights a ruleset lists. Each right below
// names the ABI version that introduced it; a kernel of an older ABI rejects
// it, so callers handle only what landlockAbi() says the kernel knows.

/** Filesystem rights (`handled_access_fs`, `allowed_access` of a path rule) and the ABI that introduced each. */
export const LANDLOCK_FS = {
  EXECUTE: { bit: 1n << 0n, abi: 1, fileOnly: true },
  WRITE_FILE: { bit: 1n << 1n, abi: 1, fileOnly: true },
  READ_FILE: { bit: 1n << 2n, abi: 1, fileOnly: true },
  READ_DIR: { bit: 1n << 3n, abi: 1, fileOnly: false },
  REMOVE_DIR: { bit: 1n << 4n, abi: 1, fileOnly: false },
  REMOVE_FILE: { bit: 1n << 5n, abi: 1, fileOnly: false },
  MAKE_CHAR: { bit: 1n << 6n, abi: 1, fileOnly: false },
  MAKE_DIR: { bit: 1n << 7n, abi: 1, fileOnly: false },
  MAKE_REG: { bit: 1n << 8n, abi: 1, fileOnly: false },
  MAKE_SOCK: { bit: 1n << 9n, abi: 1, fileOnly: false },
  MAKE_FIFO: { bit: 1n << 10n, abi: 1, fileOnly: false },
  MAKE_BLOCK: { bit: 1n << 11n, abi: 1, fileOnly: false },
  MAKE_SYM: { bit: 1n << 12n, abi: 1, fileOnly: false },
  REFER: { bit: 1n << 13n, abi: 2, fileOnly: false },
  TRUNCATE: { bit: 1n << 14n, abi: 3, fileOnly: true },
  IOCTL_DEV: { bit: 1n << 15n, abi: 5, fileOnly: true },
} as const;
export type LandlockFsRight = keyof typeof LANDLOCK_FS;

/** Network rights (`handled_access_net`): TCP bind and connect, from ABI 4. */
export const LANDLOCK_NET = {
  BIND_TCP: { bit: 1n << 0n, abi: 4 },
  CONNECT_TCP: { bit: 1n << 1n, abi: 4 },
} as const;
export type LandlockNetRight = keyof typeof LANDLOCK_NET;

/** IPC scoping (`scoped`): no reaching processes outside the sandbox, from ABI 6. */
export const LANDLOCK_SCOPE = {
  ABSTRACT_UNIX_SOCKET: { bit: 1n << 0n, abi: 6 },
  SIGNAL: { bit: 1n << 1n, abi: 6 },
} as const;
export type LandlockScope = keyof typeof LANDLOCK_SCOPE;

const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const PR_SET_NO_NEW_PRIVS = 38;

/**
 * The Landlock ABI version of the running kernel (1, 2, …). Throws a
 * NativeError with ENOSYS when the kernel has no Landlock and EOPNOTSUPP when
 * it was built in but is disabled (not in the `lsm=` list).
 */
export function landlockAbi(): number {
  const { syscall } = libc();
  return check(
    "landlock_create_ruleset",
    syscall(syscallNumber("landlock_create_ruleset"), "void *", null, "long", 0, "long", LANDLOCK_CREATE_RULESET_VERSION),
  );
}

export interface RulesetAttr {
  /** Filesystem rights the ruleset handles: anything handled and not granted by a rule is denied. */
  fs: bigint;
  net: bigint;
  scoped: bigint;
}

/** landlock_create_ruleset(2): a close-on-exec ruleset fd; close it with fs.closeSync. */
export function landlockCreateRuleset(attr: RulesetAttr): number {
  const { syscall } = libc();
  // struct landlock_ruleset_attr { __u64 handled_access_fs, handled_access_net, scoped; }.
  // Fields the kernel does not know must be zero; it then accepts the longer struct.
  const buffer = Buffer.alloc(24);
  buffer.writeBigUInt64LE(attr.fs, 0);
  buffer.writeBigUInt64LE(attr.net, 8);
  buffer.writeBigUInt64LE(attr.scoped, 16);
  return check(
    "landlock_create_ruleset",
    syscall(syscallNumber("landlock_create_ruleset"), "void *", buffer, "long", buffer.length, "long", 0),
  );
}

/**
 * landlock_add_rule(2) with LANDLOCK_RULE_PATH_BENEATH: grants `access` on
 * `path` and everything beneath it. The path is opened O_PATH (symlinks
 * followed) only for the call, so the rule names the inode found now.
 */
export function landlockAllowPath(ruleset: number, path: string, access: bigint): void {
  const { syscall } = libc();
  const fd = openSync(cPath("path", path), O_PATH | O_CLOEXEC | fsConstants.O_RDONLY);
  try {
    // struct landlock_path_beneath_attr { __u64 allowed_access; __s32 parent_fd; } __attribute__((packed)).
    const buffer = Buffer.alloc(12);
    buffer.writeBigUInt64LE(access, 0);
    buffer.writeInt32LE(fd, 8);
    check(
      "landlock_add_rule",
      syscall(
        syscallNumber("landlock_add_rule"),
        "long",
        cInt("ruleset", ruleset),
        "long",
        LANDLOCK_RULE_PATH_BENEATH,
        "void *",
        buffer,
        "long",
        0,
      ),
    );
  } finally {
    closeSync(fd);
  }
}

/** landlock_restrict_self(2): from now on this thread, and whatever it execs or forks, holds only the ruleset's rights. */
export function landlockRestrictSelf(ruleset: number): void {
  const { syscall } = libc();
  check("landlock_restrict_self", syscall(syscallNumber("landlock_restrict_self"), "long", cInt("ruleset", ruleset), "long", 0));
}

/**
 * prctl(PR_SET_NO_NEW_PRIVS): execve can never again grant privileges
 * (setuid bits, file capabilities). Irreversible, inherited; Landlock needs it.
 */
export function setNoNewPrivs(): void {
  const { prctl } = libc();
  check(
    "prctl(PR_SET_NO_NEW_PRIVS)",
    prctl(PR_SET_NO_NEW_PRIVS, "unsigned long", 1, "unsigned long", 0, "unsigned long", 0, "unsigned long", 0),
  );
}
