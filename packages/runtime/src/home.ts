import {
  chmodSync,
  closeSync,
  fsync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/**
 * What an app's name must be: it names the app's files in the instance
 * (`state/NAME.sock`, `logs/NAME.log`), so it is one safe file-name component,
 * whatever app registers it.
 */
export const APP_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** `name`, checked to be an app name (APP_NAME); a TypeError names what is wrong otherwise. */
export function appName(name: string): string {
  if (!APP_NAME.test(name)) {
    throw new TypeError(`app name ${JSON.stringify(name.slice(0, 64))}: 1-32 lowercase letters, digits and -, starting with a letter`);
  }
  return name;
}

/**
 * One isolated Venom instance (conformance/spec/design.md, "Instances"). A custom VENOM_HOME never
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
  /**
   * The app's socket path. Linux keeps at most 107 bytes of it (sun_path is 108
   * with the NUL) and Node silently binds a truncated name, which `stop` could
   * then never find; so a longer path is an error here, for daemon and client alike.
   */
  socket(app: string): string {
    const path = join(this.state, `${appName(app)}.sock`);
    const bytes = Buffer.byteLength(path);
    if (bytes > MAX_SOCKET_PATH_BYTES) {
      throw new Error(
        `the socket path ${path} is ${bytes} bytes; a Unix socket path holds at most ${MAX_SOCKET_PATH_BYTES} bytes (sun_path): choose a shorter VENOM_HOME`,
      );
    }
    return path;
  }

  /** The app's log (pino JSON). */
  log(app: string): string {
    return join(this.logs, `${appName(app)}.log`);
  }
  /** Where a daemon `start` detached writes its stderr. */
  stderrLog(app: string): string {
    return join(this.logs, `${appName(app)}.stderr`);
  }
  /** The app's CLI memo of the validated config.toml (config-memo.ts). */
  configMemo(app: string): string {
    return join(this.state, `config-memo.${appName(app)}.json`);
  }

  /** Create the instance's directories 0700; refuse any that another uid could have planted files in. */
  ensure(): this {
    privateDir(this.root, { followLink: true });
    for (const dir of [this.state, this.logs, this.agents, this.delegations]) privateDir(dir);
    return this;
  }
}

export const MAX_SOCKET_PATH_BYTES = 107;

/** A Venom directory that another uid owns or could write to: files planted in it stay planted, so it is refused. */
export class UnsafeHomeError extends Error {
  override readonly name = "UnsafeHomeError";
}

/**
 * A directory only its owner can enter. Created 0700 if missing. One that exists
 * must be a real directory (a symlink is refused, never followed; only the home
 * root itself may be a symlink the user made), owned by this euid and not writable
 * by group or others, else UnsafeHomeError names it and why: no chmod-and-continue.
 * Read and search bits for others are only tightened, since nobody could plant through them.
 */
export function privateDir(dir: string, options: { followLink?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let stat = lstatSync(dir);
  if (stat.isSymbolicLink()) {
    if (!options.followLink) throw new UnsafeHomeError(`${dir}: refused: it is a symlink; Venom's directories must be real directories`);
    stat = lstatSync(realpathSync(dir));
  }
  assertPrivate(dir, stat, "directory");
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** The owner and mode rule for Venom's own directories and files. */
export function assertPrivate(path: string, stat: Stats, what: "directory" | "file"): void {
  if (what === "directory" ? !stat.isDirectory() : !stat.isFile()) {
    throw new UnsafeHomeError(`${path}: refused: not a ${what === "directory" ? "directory" : "regular file"}`);
  }
  const euid = process.geteuid?.() ?? stat.uid;
  if (stat.uid !== euid) throw new UnsafeHomeError(`${path}: refused: owned by uid ${stat.uid}, not by you (uid ${euid})`);
  if ((stat.mode & 0o022) !== 0) {
    throw new UnsafeHomeError(
      `${path}: refused: writable by group or others (mode ${(stat.mode & 0o777).toString(8)}); check nothing was planted in it, then chmod 700 it`,
    );
  }
}

/**
 * Write a file so readers see the old content or the new, never a mix: a 0600
 * temp file in the same directory, fsync, rename over the target, fsync the
 * directory. `durable: false` skips both fsyncs, for a file that describes
 * only what lives until the machine stops: a process that dies leaves the
 * rename done or not done all the same; only a power loss can leave such a
 * file empty or missing, and then what it described is gone too.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, { durable = true } = {}): void {
  const { temp, fd } = createTemp(path, data);
  try {
    if (durable) fsyncSync(fd);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  } finally {
    closeSync(fd);
  }
  install(temp, path);
  if (durable) fsyncDirectory(path);
}

/**
 * writeFileAtomic (durable) for a daemon that must not stall while a disk
 * syncs, as every client waits for its event loop meanwhile (a job record's
 * fsync took 5-7 ms at the start of a launch): the two fsyncs run on libuv's
 * thread pool. The rest stays on this thread, which the page cache answers at
 * once: each step sent to the pool costs a wakeup of a pool thread (some
 * 0.15 ms of this thread's CPU on these machines). Concurrent writes of one
 * file may land in any order: a caller orders them.
 */
export async function writeFileAtomicAsync(path: string, data: string): Promise<void> {
  const { temp, fd } = createTemp(path, data);
  try {
    await fsyncOnPool(fd);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  } finally {
    closeSync(fd);
  }
  install(temp, path);
  await fsyncDirectoryOnPool(path);
}

/** A new 0600 temp file beside `path` holding `data`, still open; none is left where writing fails. */
function createTemp(path: string, data: string | Uint8Array): { temp: string; fd: number } {
  const temp = tempPathFor(path);
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  return { temp, fd };
}

/** Rename the temp file over `path`; where that fails, remove it. */
function install(temp: string, path: string): void {
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}

/** Sync the entries of the directory `path` is in: the rename is on disk once this returns. */
function fsyncDirectory(path: string): void {
  const fd = openSync(dirname(path), "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function fsyncDirectoryOnPool(path: string): Promise<void> {
  const fd = openSync(dirname(path), "r");
  try {
    await fsyncOnPool(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncOnPool(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** A temp file's name beside `path`, unpredictable, hidden and ignored by readers of *.json. */
function tempPathFor(path: string): string {
  // The global Web Crypto, not node:crypto: importing that costs every CLI command its start time.
  return join(dirname(path), `.${basename(path)}.${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}.tmp`);
}
