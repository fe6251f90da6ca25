// @venom/native: typed koffi bindings for the Linux syscalls Node lacks.
// Nothing native is loaded at import; each function checks the platform and
// loads libc on first call.

export { ptyExecPath, sandboxLauncherPath } from "./built-programs.js";
export { AT_REMOVEDIR, O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW, O_PATH } from "./constants.js";
export { mkdirAt, renameAt, unlinkAt } from "./dir-ops.js";
export { errnoName, NativeError } from "./errors.js";
export { execve } from "./exec.js";
export { tryLockExclusive, unlock } from "./flock.js";
export {
  LANDLOCK_FS,
  LANDLOCK_NET,
  LANDLOCK_SCOPE,
  type LandlockFsRight,
  type LandlockNetRight,
  type LandlockScope,
  landlockAbi,
  landlockAllowPath,
  landlockCreateRuleset,
  landlockRestrictSelf,
  type RulesetAttr,
  setNoNewPrivs,
} from "./landlock.js";
export { openBeneath } from "./open-beneath.js";
export { type PeerCredAddon, type PeerCredentials, peerCredAddon, peerCredentials, peerPidfd, socketFd } from "./peer.js";
export { pidfdExited, pidfdOpen, pidfdSendSignal } from "./pidfd.js";
export { assertSupported, type SupportedArch, UnsupportedPlatformError } from "./platform.js";
export { closeOnExecAboveStderr, setNotDumpable } from "./process-guard.js";
export { afterRecord } from "./start-gate.js";
export { isChildSubreaper, setChildSubreaper } from "./subreaper.js";
export { ECHILD, type WaitResult, WNOHANG, waitpid } from "./wait.js";
