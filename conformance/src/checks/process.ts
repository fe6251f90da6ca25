import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ToolResult, ToolResultSchema, ToolsCancelResultSchema } from "@venom/proto";
import { type Check, design, rfc0008, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { eventually, nonce, runArguments, saysCut, shellQuote, whileRunning } from "../probes.js";
import { expect, expectFramed, expectResult, fail, NotApplicable } from "../verdict.js";

const GROUP_RULE = securityModel(
  "Tool rules",
  "SCV starts it in a new process group; cancellation or timeout sends a group-wide termination signal and ends with `KILL` if any member remains.",
);
const GROUP_DESIGN = design(
  "Containment (each app supplies its rules; the runtime supplies the mechanisms)",
  "Processes: own process group (or session), wall-clock timeout, bounded combined output, cancel = TERM to the group then KILL after 2 s, deadline = KILL at once; pipes a grandchild holds cannot extend the call.",
);
/** Time we allow on top of what the rules promise: process start-up and scheduling on a loaded machine. */
const SLACK_MS = 3_000;

/** A process's start time (field 22 of /proc/PID/stat): with the pid, it names one process, never a reused pid. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** The processes of a command that writes its pids to a file, read once all `count` have started (while its call runs). */
function members(call: Promise<ToolResult>, file: string, count: number): Promise<Map<number, string>> {
  const started = eventually(() => {
    const pids = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
    return pids.length >= count ? new Map(pids.map((pid) => [pid, startTime(pid) ?? "exited"])) : undefined;
  }, `all ${count} processes of the run's command starting`);
  return whileRunning(call, started, `all ${count} of its processes started`);
}

/** Every member is gone (or a zombie) within `ms`; else the survivors are named, and killed so the run leaves nothing behind. */
async function expectAllGone(group: Map<number, string>, ms: number): Promise<void> {
  const alive = () => [...group].filter(([pid, start]) => startTime(pid) === start).map(([pid]) => pid);
  for (const deadline = Date.now() + ms; alive().length > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
  const survivors = alive();
  for (const pid of survivors) process.kill(pid, "SIGKILL");
  expect(survivors.length === 0, `group members still running: ${survivors.join(", ")}`);
}

/**
 * A shell that records its own pid, a background child, and a grandchild in
 * its own sub-shell, then waits; `stubborn` adds a member that ignores TERM.
 */
function groupScript(file: string, stubborn: boolean): string {
  return [
    `P=${shellQuote(file)}`,
    `echo $$ >> "$P"`,
    `sleep 300 & echo $! >> "$P"`,
    `sh -c 'sleep 300 & echo $! >> "$0"; echo $$ >> "$0"; wait' "$P" &`,
    ...(stubborn ? [`sh -c 'trap "" TERM; echo $$ >> "$0"; while :; do sleep 1; done' "$P" &`] : []),
    "wait",
  ].join("\n");
}

/** An uncertain outcome may have taken effect: it must forbid a retry (RFC 0008, "Failure and uncertainty"). */
function expectUncertainForbidsRetry(result: ToolResult): void {
  expect(
    result.status !== "uncertain" || result.error?.retry === "forbidden",
    `an uncertain result allows a retry (${JSON.stringify(result.error)})`,
  );
}

async function runSession(ctx: CheckContext) {
  const tool = ctx.tool("run");
  if (!tool) fail("no run tool");
  const { client } = await ctx.session({ label: "run", approve: "approve" });
  return { tool, client, pids: join(ctx.dir("process"), `pids-${nonce()}`) };
}

export const processChecks: readonly Check[] = [
  {
    id: "process/group-kill-timeout",
    level: "MUST",
    requirement: securityModel(
      "Tool rules",
      "Cancellation permits up to two seconds of graceful cleanup; reaching the execution deadline kills immediately.",
    ),
    also: [GROUP_RULE, GROUP_DESIGN],
    expected: `a run with a 2s timeout whose command starts children and grandchildren returns within 2s (+${SLACK_MS / 1000}s slack) and leaves no member of its group running`,
    needs: ["run"],
    async run(ctx) {
      const { tool, client, pids } = await runSession(ctx);
      const started = Date.now();
      const call = ctx.callTool(client, "run", runArguments(tool, groupScript(pids, false)), { timeoutSeconds: 2, waitMs: 30_000 });
      const group = await members(call, pids, 4);
      const result = await call;
      const elapsed = Date.now() - started;
      expect(elapsed <= 2_000 + SLACK_MS, `the call returned after ${elapsed}ms, past its 2s deadline`);
      expectUncertainForbidsRetry(result);
      await expectAllGone(group, 1_000);
      return `status ${result.status} after ${elapsed}ms; all ${group.size} group members gone`;
    },
  },
  {
    id: "process/group-kill-cancel",
    level: "MUST",
    requirement: GROUP_RULE,
    also: [
      securityModel("Approval behavior", "Cancellation denies and terminates pending work."),
      rfc0008(
        "Failure and uncertainty",
        "A typed uncertain execution error can only describe a mutating tool and always declares retry forbidden.",
      ),
      GROUP_DESIGN,
    ],
    expected: `tools/cancel of a running command whose group has a member ignoring TERM returns the call within 2s (+${SLACK_MS / 1000}s slack) and leaves no member running`,
    needs: ["run"],
    async run(ctx) {
      const { tool, client, pids } = await runSession(ctx);
      const callId = `conformance-${nonce()}`;
      const call = ctx.callTool(client, "run", runArguments(tool, groupScript(pids, true)), {
        callId,
        timeoutSeconds: 120,
        waitMs: 60_000,
      });
      const group = await members(call, pids, 5);
      const cancelled = Date.now();
      const cancel = expectResult(await client.request("tools/cancel", { callId }), ToolsCancelResultSchema, "tools/cancel");
      expect(cancel.cancelled, "tools/cancel says no such call was running");
      const result = await call;
      const elapsed = Date.now() - cancelled;
      expect(result.status !== "ok", "the cancelled call reports status ok");
      expectUncertainForbidsRetry(result);
      expect(elapsed <= 2_000 + SLACK_MS, `the call returned ${elapsed}ms after tools/cancel`);
      await expectAllGone(group, 1_000);
      return `status ${result.status} ${elapsed}ms after cancel; all ${group.size} group members gone, the one ignoring TERM too`;
    },
  },
  {
    id: "process/output-bounded",
    level: "MUST",
    requirement: securityModel(
      "Tool rules",
      "It requires approval under the default policy, has a wall-clock timeout, and bounds combined stdout/stderr.",
    ),
    also: [securityModel("Network and protocol", "Protocol lines, tool arguments, tool output, and provider responses are size bounded.")],
    expected:
      "a run printing 16 MiB of control characters returns a bounded result that says it was cut (data.truncated true, or a note in the content naming the cut): content shorter than the output, in a reply line within the 1 MiB frame limit",
    needs: ["run"],
    async run(ctx) {
      const { tool, client } = await runSession(ctx);
      const produced = 16 * 1024 * 1024;
      const args = runArguments(tool, `head -c ${produced} /dev/zero | tr '\\000' '\\001'; head -c 1024 /dev/zero >&2`);
      const reply = await client.request("tools/call", { name: "run", arguments: args, timeoutSeconds: 60 }, 90_000);
      expectFramed(reply, "a run printing 16 MiB");
      const result = expectResult(reply, ToolResultSchema, "a run printing 16 MiB");
      const bytes = Buffer.byteLength(result.content);
      expect(bytes < produced, `the run returned ${bytes} bytes of output`);
      expect(
        saysCut(result),
        `the run's output (status ${result.status}) was cut to ${bytes} bytes without saying so (no data.truncated, no note of the cut)`,
      );
      return `status ${result.status}, ${bytes} content bytes in a ${reply.bytes}-byte line, the cut said`;
    },
  },
  {
    id: "process/timeout-not-ok",
    level: "MUST",
    requirement: rfc0008(
      "Failure and uncertainty",
      "A definitive failure may declare retry eligible only when the tool’s replay contract is not unsafe; no core dispatcher performs that retry by itself.",
    ),
    also: [GROUP_DESIGN],
    expected:
      "a run killed at its 1s deadline does not report ok; when the run tool's replay contract is unsafe its error does not allow a retry",
    needs: ["run"],
    async run(ctx) {
      const { tool, client } = await runSession(ctx);
      const result = await ctx.callTool(client, "run", runArguments(tool, "sleep 60"), { timeoutSeconds: 1, waitMs: 30_000 });
      ctx.see("the result", JSON.stringify(result));
      expect(result.status !== "ok" && result.status !== "denied", `a run killed at its deadline reports status ${result.status}`);
      expect(
        tool.replay !== "unsafe" || result.error?.retry !== "allowed",
        `the run tool is replay-unsafe, yet its timed-out result allows a retry (${JSON.stringify(result.error)})`,
      );
      return `status ${result.status}, retry ${result.error?.retry ?? "not stated"}`;
    },
  },
  {
    id: "process/cancel-uncertain",
    level: "MUST",
    requirement: rfc0008("Failure and uncertainty", "Cancellation does not prove a mutating operation had no effect."),
    also: [
      rfc0008(
        "Failure and uncertainty",
        "A typed uncertain execution error can only describe a mutating tool and always declares retry forbidden.",
      ),
    ],
    expected: "tools/cancel of a running command of the (mutating) run tool ends the call with status uncertain and retry forbidden",
    needs: ["run"],
    notApplicableWhen: "the run tool's descriptor says it is not mutating",
    async run(ctx) {
      const { tool, client, pids } = await runSession(ctx);
      if (tool.effect !== "mutating") throw new NotApplicable("the daemon's run tool is not mutating");
      const callId = `conformance-${nonce()}`;
      const script = `echo $$ > ${shellQuote(pids)}; sleep 60`;
      const call = ctx.callTool(client, "run", runArguments(tool, script), { callId, timeoutSeconds: 120, waitMs: 60_000 });
      await members(call, pids, 1);
      const cancel = expectResult(await client.request("tools/cancel", { callId }), ToolsCancelResultSchema, "tools/cancel");
      expect(cancel.cancelled, "tools/cancel says no such call was running");
      const result = await call;
      ctx.see("the result", JSON.stringify(result));
      expect(
        result.status === "uncertain" && result.error?.retry === "forbidden",
        `the cancelled mutating call reports status ${result.status} with retry ${result.error?.retry ?? "not stated"}`,
      );
      return "status uncertain, retry forbidden";
    },
  },
];
