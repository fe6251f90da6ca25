import * as z from "zod";

const Path = z.string().startsWith("/").max(4096);

/**
 * What one confined process may touch (absolute, canonical paths). A schema
 * because delegation records carry the profiles a process runs under, so that
 * what a delegate asks a daemon to start is confined at least as narrowly.
 */
export const SandboxProfileSchema = z.strictObject({
  /** Read and execute beneath each: the system, Node and tool install dirs, the workspace. */
  readExec: z.array(Path).max(256),
  /** Read only beneath each (/proc: Landlock's ptrace rule still closes other processes' private entries). */
  read: z.array(Path).max(256),
  /** Every filesystem right beneath each: the workspace, the private home and temp dir, sandbox.writable. */
  writable: z.array(Path).max(256),
  /** Device files (or directories of them) to read, write and ioctl: /dev/null, the terminal. */
  devices: z.array(Path).max(256),
  network: z.enum(["any", "none"]),
  /** HOME and TMPDIR of the confined process: its private, writable directories. */
  home: Path,
  tmp: Path,
});
export type SandboxProfile = z.infer<typeof SandboxProfileSchema>;

/** Landlock stacks at most 16 domains on a process. */
export const MAX_LAYERS = 16;
/** What a delegation record may spend on its layers (the record is read up to 256 KiB). */
export const MAX_LAYERS_BYTES = 192 * 1024;

/** The profiles a process runs under, one Landlock layer each, outermost first. */
export const LayersSchema = z.array(SandboxProfileSchema).max(MAX_LAYERS);
