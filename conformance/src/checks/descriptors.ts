import { readdirSync, readFileSync } from "node:fs";
import { PaneInfoSchema } from "@venom/proto";
import { type Check, securityModel } from "../check.js";
import { eventually, runArguments } from "../probes.js";
import { expect, expectResult, fail } from "../verdict.js";

// A process the daemon starts holds fds 0-2 of its own and nothing of the
// daemon's: a pty master of another pane among them would let a program in
// one pane type into the owner's shell pane and read what is typed there
// (docs/security-model.md, "Descriptors").

const AGENT_STATE_RULE = securityModel(
  "Tool rules",
  "The delegated CLI still has the user's operating system permissions and may implement its own tools and approvals, but it cannot silently reuse the user's normal agent state.",
);
/** Stdin, stdout and stderr: every other fd a started process holds came from the daemon. */
const OWN_FDS = "0 1 2";

function describeFds(fds: readonly string[]): string {
  return fds.join(" ");
}

/** How long a program may hold fds of its own startup: its dynamic loader opens a library for a moment after the exec. */
const STARTUP_MS = 5_000;

/**
 * The fds of `pid` once it runs `program` (a launcher in between may still be
 * there at first) and its startup is over: the first reading of only its own
 * fds, else, since a leaked fd stays, the last reading after STARTUP_MS.
 */
async function fdsOnceRunning(pid: number, program: string): Promise<string[]> {
  const read = (): string[] | undefined => {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== program) return undefined;
      return readdirSync(`/proc/${pid}/fd`).sort((a, b) => Number(a) - Number(b));
    } catch {
      return undefined;
    }
  };
  let last = await eventually(read, `the pane's process ${pid} running ${program}`);
  for (const deadline = Date.now() + STARTUP_MS; describeFds(last) !== OWN_FDS && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = read() ?? last;
  }
  return last;
}

export const descriptorChecks: readonly Check[] = [
  {
    id: "descriptors/run",
    level: "MUST",
    requirement: AGENT_STATE_RULE,
    expected: `a run's process, started while other sessions are connected, holds fds ${OWN_FDS} and no other (the shell lists its own /proc/PID/fd)`,
    needs: ["run"],
    async run(ctx) {
      const tool = ctx.tool("run");
      if (!tool) fail("no run tool");
      // Other sessions stay connected meanwhile (the context closes them after the check): their sockets must not leak either.
      await ctx.session({ label: "other" });
      await ctx.session({ label: "other" });
      const { client } = await ctx.session({ label: "run", approve: "approve" });
      // `; :` keeps the shell from exec'ing ls in its place: ls lists the shell's fds while it waits.
      const result = await ctx.callTool(client, "run", runArguments(tool, "ls /proc/$$/fd; :"), { timeoutSeconds: 30, waitMs: 60_000 });
      expect(result.status === "ok", `the run ended ${result.status}: ${result.content.slice(0, 200)}`);
      const fds = result.content.trim().split(/\s+/);
      ctx.see("the run's fds", describeFds(fds));
      expect(describeFds(fds) === OWN_FDS, `the run's process holds fds ${describeFds(fds)}, not only ${OWN_FDS}`);
      return `fds ${describeFds(fds)}`;
    },
  },
  {
    id: "descriptors/pane",
    level: "MUST",
    requirement: AGENT_STATE_RULE,
    expected: `a pane's program, started while another pane runs, holds fds ${OWN_FDS} and no other: no pty or pipe of the other pane`,
    needsMethods: ["pane/new", "pane/kill"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "panes" });
      const first = expectResult(await client.request("pane/new", { argv: ["sleep", "30"] }), PaneInfoSchema, "pane/new (the first)");
      const second = expectResult(await client.request("pane/new", { argv: ["sleep", "30"] }), PaneInfoSchema, "pane/new (the second)");
      const fds = await fdsOnceRunning(second.pid, "sleep");
      ctx.see("the second pane's fds", describeFds(fds));
      await client.request("pane/kill", { target: first.id });
      await client.request("pane/kill", { target: second.id });
      expect(describeFds(fds) === OWN_FDS, `the second pane's program holds fds ${describeFds(fds)}, not only ${OWN_FDS}`);
      return `fds ${describeFds(fds)}`;
    },
  },
];
