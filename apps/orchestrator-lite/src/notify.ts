import { spawn } from "node:child_process";
import { BASE_ENV } from "@venom/runtime";
import { configSection } from "@venom/runtime/config";
import * as z from "zod";

/**
 * `[notify] command = ["notify-send", "--app-name=venom"]` (docs/venom-orch.md, "Notifications"): an argv run
 * without a shell, user configuration only, when a job starts waiting for the person and when it ends.
 */
export const notifySection = configSection("notify", z.strictObject({ command: z.array(z.string().min(1)).min(1).optional() }).default({}));

/** What the command reads on stdin: our own words and the escaped label, never the agent's output. */
export interface NotifyEvent {
  event: "awaiting-approval" | "ended";
  job: string;
  label: string;
  state: string;
  /** What it waits for (label and tool), escaped. */
  waitingFor?: string;
  /** Questions waiting in the inbox, all jobs. */
  waiting: number;
}

/** A command still running after this long is killed and logged: a notification never holds anything up. */
const NOTIFY_TIMEOUT_MS = 10_000;
/** At most this many run at once; more events meanwhile are dropped and logged. */
const MAX_RUNNING = 4;

/** What a desktop notifier needs to reach the session, beside the base set every child of Venom gets: never a credential. */
const DESKTOP_VARS = ["HOME", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"];

/** The base set every child of Venom gets and `extra`, of `from`: a program venom-orch runs itself sees nothing else. */
export function passedEnv(from: NodeJS.ProcessEnv, extra: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    const wanted = [...BASE_ENV, ...extra].some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));
    if (wanted && value !== undefined) env[name] = value;
  }
  return env;
}

export class Notifier {
  readonly #env: Record<string, string>;
  #running = 0;

  constructor(
    private readonly command: readonly string[] | undefined,
    private readonly log: (message: string, fields: Record<string, unknown>) => void,
  ) {
    this.#env = passedEnv(process.env, DESKTOP_VARS);
  }

  send(event: NotifyEvent): void {
    const [file, ...args] = this.command ?? [];
    if (!file) return;
    if (this.#running >= MAX_RUNNING) {
      this.log("a notification was dropped: earlier notify commands still run", { job: event.job });
      return;
    }
    this.#running++;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { stdio: ["pipe", "ignore", "ignore"], env: this.#env });
    } catch (error) {
      this.#running--;
      this.log("the notify command could not be started", { error: (error as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      this.log("the notify command ran too long and was killed", { ms: NOTIFY_TIMEOUT_MS });
      child.kill("SIGKILL");
    }, NOTIFY_TIMEOUT_MS);
    child.once("error", (error) => this.log("the notify command failed", { error: error.message }));
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      this.#running--;
      if (code !== 0 && signal !== "SIGKILL") this.log("the notify command failed", { exitCode: code, signal });
    });
    // A command that does not read its stdin must not fail the write.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(`${JSON.stringify(event)}\n`);
  }
}
