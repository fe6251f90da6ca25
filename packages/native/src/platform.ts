// Platform gate. The bindings hard-code Linux ABI details (syscall numbers,
// struct layouts, socket option values), so anything other than Linux on
// x86_64/aarch64 must fail loudly instead of issuing wrong syscalls.

/** The `process.arch` values whose Linux ABI this package knows. */
export type SupportedArch = "x64" | "arm64";

export class UnsupportedPlatformError extends Error {
  readonly platform: string;
  readonly arch: string;

  constructor(platform: string, arch: string) {
    super(`@venom/native supports only Linux on x64 (x86_64) or arm64 (aarch64); this process is platform "${platform}", arch "${arch}"`);
    this.name = "UnsupportedPlatformError";
    this.platform = platform;
    this.arch = arch;
  }
}

/** Pure check, so it can be tested with platforms other than the one we run on. */
export function assertSupported(platform: string, arch: string): asserts arch is SupportedArch {
  if (platform !== "linux" || (arch !== "x64" && arch !== "arm64")) {
    throw new UnsupportedPlatformError(platform, arch);
  }
}

/**
 * The current arch, after checking the current platform. Called by every
 * native entry point (never at import time), so importing the package is
 * always safe and the error appears at the first real use.
 */
export function supportedArch(): SupportedArch {
  const { platform, arch } = process;
  assertSupported(platform, arch);
  return arch;
}
