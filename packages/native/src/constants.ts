import { constants as fsConstants } from "node:fs";

// Flag values used with the bindings. Flags Node already exposes are taken
// from fs.constants because their values differ between arches (O_DIRECTORY
// and O_NOFOLLOW are not the same on x86_64 and aarch64); the ones Node lacks
// are identical on every supported arch.

/** O_PATH: a descriptor usable only as a dirfd / for fstat, not for I/O. */
export const O_PATH = 0o10000000;
/** O_CLOEXEC; openBeneath always adds it. */
export const O_CLOEXEC = 0o2000000;
export const O_DIRECTORY: number = fsConstants.O_DIRECTORY;
export const O_NOFOLLOW: number = fsConstants.O_NOFOLLOW;

/** unlinkat flag: remove a directory instead of a file. */
export const AT_REMOVEDIR = 0x200;

/** openat2 resolve flags used by openBeneath (linux/openat2.h). */
export const RESOLVE_NO_MAGICLINKS = 0x02;
export const RESOLVE_BENEATH = 0x08;
