export { refusedAsProtocolError, SandboxUnavailableError } from "./errors.js";
export {
  kernelLandlock,
  knownConfinement,
  type SandboxedCommand,
  type SandboxLauncher,
  sandboxedCommand,
  sandboxFor,
  sandboxLauncher,
  sandboxNotices,
} from "./launch.js";
export { type Confinement, confinementFor, describeConfinement, planRuleset, type RulesetPlan, type SandboxProfile } from "./plan.js";
export { type SandboxSpec, sandboxProfileFor } from "./profile.js";
