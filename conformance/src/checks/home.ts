import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type Check, securityModel } from "../check.js";
import { type CheckContext, ownEnv, type Target } from "../context.js";
import { expect, fail, NotApplicable } from "../verdict.js";

/** How long a daemon may take to refuse a home or to start: far more than a correct one needs. */
const START_WAIT_MS = 20_000;
/** The uid a home "owned by someone else" gets; only root can give it away. */
const NOBODY = 65534;

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Another instance of the daemon, in the foreground, on `home`. */
function serveOn(serve: NonNullable<Target["serve"]>, home: string): Started {
  const child = spawn(serve.command, [...serve.args], {
    env: { ...(serve.env ?? ownEnv()), VENOM_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    if (output.length < 64 * 1024) output += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  return { child, output: () => output, exited };
}

async function stop(started: Started): Promise<void> {
  if (started.child.exitCode === null && started.child.signalCode === null) {
    started.child.kill("SIGTERM");
    const timer = setTimeout(() => started.child.kill("SIGKILL"), 5_000);
    await started.exited;
    clearTimeout(timer);
  }
}

/** Its exit code, or "running" if it has not exited within `ms`; the timer is cleared, so it never holds the suite's process open. */
async function exitedWithin(started: Started, ms: number): Promise<number | null | "running"> {
  let timer: NodeJS.Timeout | undefined;
  const running = new Promise<"running">((resolve) => {
    timer = setTimeout(() => resolve("running"), ms);
  });
  try {
    return await Promise.race([started.exited, running]);
  } finally {
    clearTimeout(timer);
  }
}

/** A home the daemon must refuse, and the path its refusal must name. */
interface Hostile {
  what: string;
  make(home: string, elsewhere: string): string;
}

const HOSTILE_HOMES: readonly Hostile[] = [
  {
    what: "a home writable by group and others (0777)",
    make(home) {
      mkdirSync(home);
      chmodSync(home, 0o777); // past the umask
      return home;
    },
  },
  {
    what: "a home owned by another uid",
    make(home) {
      mkdirSync(home, { mode: 0o700 });
      chownSync(home, NOBODY, NOBODY);
      return home;
    },
  },
  {
    what: "a home whose state directory is a symlink to a directory elsewhere",
    make(home, elsewhere) {
      mkdirSync(home, { mode: 0o700 });
      symlinkSync(elsewhere, join(home, "state"));
      return join(home, "state");
    },
  },
];

/** Start on each hostile home: the daemon must exit non-zero naming the path, and nothing may listen or appear. */
async function refusesHostileHomes(ctx: CheckContext, serve: NonNullable<Target["serve"]>, socketIn: (home: string) => string) {
  const seen: string[] = [];
  const root = mkdtempSync(join(tmpdir(), "venom-conformance-homes-"));
  try {
    for (const [i, hostile] of HOSTILE_HOMES.entries()) {
      if (hostile.what.includes("another uid") && process.getuid?.() !== 0) {
        ctx.see(hostile.what, "not tried: only root can give a directory to another uid");
        continue;
      }
      const elsewhere = join(root, `elsewhere-${i}`);
      mkdirSync(elsewhere, { mode: 0o700 });
      const home = join(root, `home-${i}`);
      const named = hostile.make(home, elsewhere);
      const started = serveOn(serve, home);
      const code = await exitedWithin(started, START_WAIT_MS);
      const listening = existsSync(socketIn(home));
      await stop(started);
      ctx.see(`started on ${hostile.what}`, `exit ${code}; said: ${started.output().trim()}`);
      expect(code !== "running", `started on ${hostile.what}, the daemon was still running ${START_WAIT_MS / 1000}s later`);
      expect(code !== 0, `started on ${hostile.what}, the daemon exited 0 instead of refusing`);
      expect(!listening, `started on ${hostile.what}, the daemon listened on ${socketIn(home)}`);
      expect(
        readdirSync(elsewhere).length === 0,
        `started on ${hostile.what}, the daemon created ${readdirSync(elsewhere).join(", ")} through it`,
      );
      expect(
        started.output().includes(named),
        `the refusal for ${hostile.what} does not name ${named}: ${started.output().trim().slice(0, 300)}`,
      );
      seen.push(`${hostile.what}: exit ${code}, names ${named}`);
    }
    // The control: a fresh private home starts, so the refusals above were about the homes.
    const fresh = join(root, "fresh");
    mkdirSync(fresh, { mode: 0o700 });
    const started = serveOn(serve, fresh);
    const socket = socketIn(fresh);
    for (const deadline = Date.now() + START_WAIT_MS; !existsSync(socket) && Date.now() < deadline && started.child.exitCode === null; ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const up = existsSync(socket);
    await stop(started);
    if (!up) fail(`on a fresh private home the daemon did not start (no ${socket}): ${started.output().trim().slice(0, 300)}`);
    return `${seen.join("; ")}; a fresh private home starts`;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export const homeChecks: readonly Check[] = [
  {
    id: "instance/hostile-home",
    level: "MUST",
    requirement: securityModel("Trust boundaries", "Each SCV instance is isolated by its `SCV_HOME` root."),
    expected:
      "started on a VENOM_HOME writable by group and others, on one owned by another uid (tried as root), or on one whose state directory is a symlink, the daemon exits non-zero naming the path, listens nowhere and creates nothing through the link; on a fresh private home it starts",
    notApplicableWhen: "the suite was not told how to start another instance (it does for --target; otherwise --serve-command)",
    async run(ctx) {
      const { serve, home, socket } = ctx.target;
      if (!serve || !home) throw new NotApplicable("no way to start another instance: give --serve-command and --home");
      return refusesHostileHomes(ctx, serve, (other) => join(other, relative(home, socket)));
    },
  },
];
