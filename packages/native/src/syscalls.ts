import { type SupportedArch, supportedArch } from "./platform.js";

// Raw syscall numbers for the calls glibc has no (or no reliably present)
// wrapper for. Numbers from 424 upwards were allocated identically on every
// architecture, so the supported arches share one table; the table is still
// per-arch so a future arch with its own numbering cannot silently inherit it.
const UNIFIED_NUMBERS = {
  pidfd_send_signal: 424,
  pidfd_open: 434,
  close_range: 436,
  openat2: 437,
  landlock_create_ruleset: 444,
  landlock_add_rule: 445,
  landlock_restrict_self: 446,
} as const;

export const SYSCALL_NUMBERS = {
  x64: UNIFIED_NUMBERS,
  arm64: UNIFIED_NUMBERS,
} as const satisfies Record<SupportedArch, Record<string, number>>;

export type SyscallName = keyof (typeof SYSCALL_NUMBERS)[SupportedArch];

/** The number of `name` on the running arch; throws UnsupportedPlatformError elsewhere. */
export function syscallNumber(name: SyscallName): number {
  return SYSCALL_NUMBERS[supportedArch()][name];
}
