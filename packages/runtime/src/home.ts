import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

export type AppName = "echo" | "mux" | "orch";

/**
 * One isolated Venom instance (DESIGN.md, "Instances"). A custom VENOM_HOME never
 * falls back to ~/.venom: whatever is set is the only place this instance touches.
 */
export class VenomHome {
  readonly root: string;

  constructor(root: string) {
    if (!isAbsolute(root)) throw new Error(`VENOM_HOME must be an absolute path (got a relative one)`);
    this.root = resolve(root);
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env): VenomHome {
    const set = env.VENOM_HOME;
    if (set !== undefined && set !== "") return new VenomHome(resolve(set));
    return new VenomHome(join(homedir(), ".venom"));
  }

  get state(): string {
    return join(this.root, "state");
  }
  get logs(): string {
    return join(this.root, "logs");
  }
  get agents(): string {
    return join(this.root, "agents");
  }
  get delegations(): string {
    return join(this.state, "delegations");
  }
  get configFile(): string {
    return join(this.root, "config.toml");
  }
  socket(app: AppName): string {
    return join(this.state, `${app}.sock`);
  }

  /** Create the instance's directories with mode 0700, tightening any that exist looser. */
  ensure(): this {
    for (const dir of [this.root, this.state, this.logs, this.agents, this.delegations]) privateDir(dir);
    return this;
  }
}

/** A directory only its owner can enter: created 0700, and chmod-ed back to 0700 if found looser. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Write a file so readers see the old content or the new, never a mix: a 0600
 * temp file in the same directory, fsync, rename over the target, fsync the directory.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
