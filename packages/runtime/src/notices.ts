/**
 * The notice every hello, status and --help carries while it is true (RFC 0008,
 * "Threat boundary"): nothing here is a sandbox.
 */
export const NO_SANDBOX_NOTICE =
  "no sandbox is active: tools run as your user with your full permissions; Venom confines read and write paths to the workspace, asks before side effects, and bounds time and output, but it does not isolate processes";

export const DELEGATE_NOTICE =
  "you are a delegate: management is refused, your grant is no wider than your parent's, and approvals go to the person who started the delegation";

/** What --help says: the default, and how to opt in to confinement. */
export const SANDBOX_HELP = `by default, ${NO_SANDBOX_NOTICE}. With [sandbox] mode = "landlock" in config.toml, every process Venom starts is confined by Landlock instead, or refused where the kernel cannot (docs/security-model.md, "Confinement (opt-in)")`;
