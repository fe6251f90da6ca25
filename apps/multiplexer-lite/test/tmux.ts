import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let counter = 0;

/** Why tests that compare with tmux or run inside it cannot run here, if they cannot (tmux is installed here and in CI). */
export const TMUX_MISSING = spawnSync("tmux", ["-V"]).error
  ? "tmux is not installed: the tests that compare venom-mux with tmux, or drive it inside tmux, need it (apt-get install tmux)"
  : undefined;

/** Poll `probe` until it returns something, up to `timeoutMs`; the error shows what was last seen. */
export async function poll<T>(probe: () => T | undefined, describe: () => string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A real tmux server of its own (unique socket name, no user config, no status
 * line) with one window running an interactive bash: the terminal a person
 * would type `venom-mux attach` into.
 */
export class Tmux {
  readonly socket = `venom-attach-${process.pid}-${++counter}`;
  readonly #dir = mkdtempSync(join(tmpdir(), "venom-tmux-"));

  private constructor() {}

  /**
   * Start the server with a cols × rows window; `env` is the environment of its shell. `command` (a shell
   * command line) runs instead of the interactive bash.
   */
  static start(options: {
    env: NodeJS.ProcessEnv;
    cols?: number;
    rows?: number;
    cwd?: string;
    command?: string;
    historyLimit?: number;
  }): Tmux {
    const tmux = new Tmux();
    const conf = join(tmux.#dir, "tmux.conf");
    writeFileSync(conf, `set -g status off\nset -g history-limit ${options.historyLimit ?? 2000}\n`);
    const env: NodeJS.ProcessEnv = { ...options.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
    execFileSync(
      "tmux",
      [
        "-L",
        tmux.socket,
        "-f",
        conf,
        "new-session",
        "-d",
        "-s",
        "main",
        "-x",
        String(options.cols ?? 100),
        "-y",
        String(options.rows ?? 30),
        ...(options.cwd ? ["-c", options.cwd] : []),
        // The prompt is set on the command line: a shell between tmux and bash may drop PS1 from the environment.
        options.command ?? "exec env PS1='outer$ ' HISTFILE=/dev/null bash --norc --noprofile",
      ],
      { env, stdio: "ignore" },
    );
    return tmux;
  }

  run(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Type text as it is. */
  type(text: string): void {
    this.run("send-keys", "-t", "main", "-l", text);
  }

  /** Press keys by tmux name (Enter, C-b, Up, …). */
  keys(...keys: string[]): void {
    this.run("send-keys", "-t", "main", ...keys);
  }

  /** Type a command line and press Enter. */
  enter(line: string): void {
    this.type(line);
    this.keys("Enter");
  }

  /** What a person sees in the window now. */
  screen(): string {
    return this.run("capture-pane", "-p", "-t", "main");
  }

  /** Wait until the screen satisfies `test` (a pattern, or a predicate); returns that screen. */
  waitFor(test: RegExp | ((screen: string) => boolean), timeoutMs = 10_000): Promise<string> {
    const ok = typeof test === "function" ? test : (screen: string) => test.test(screen);
    let last = "";
    return poll(
      () => {
        last = this.screen();
        return ok(last) ? last : undefined;
      },
      () => `the tmux screen never showed ${typeof test === "function" ? "what was expected" : test}; it shows:\n${last}`,
      timeoutMs,
    );
  }

  resize(cols: number, rows: number): void {
    this.run("resize-window", "-t", "main", "-x", String(cols), "-y", String(rows));
  }

  /** The pid of the window's shell. */
  shellPid(): number {
    return Number(this.run("display-message", "-p", "-t", "main", "#{pane_pid}").trim());
  }

  /** Children of the window's shell (e.g. the attached client). */
  shellChildren(): number[] {
    const pid = this.shellPid();
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  kill(): void {
    try {
      execFileSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
    rmSync(this.#dir, { recursive: true, force: true });
    // tmux leaves its socket file behind after kill-server.
    const dir = join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`);
    rmSync(join(dir, this.socket), { force: true });
  }
}
