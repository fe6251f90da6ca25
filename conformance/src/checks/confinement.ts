/**
 * What a daemon that says it confines the processes it starts (hello's
 * notices: "sandbox active (Landlock ABI N)") must then hold to, seen from
 * outside with a real process started by its run tool. Not applicable to a
 * daemon whose notices say no sandbox is active.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { type Check, design } from "../check.js";
import type { CheckContext } from "../context.js";
import { nonce, runArguments, shellQuote } from "../probes.js";
import { expect, fail, NotApplicable } from "../verdict.js";

const KERNEL_BOUNDARY = design("Delegation across daemons", "the opt-in Landlock profile is the only kernel-enforced boundary.");

/** The notice a confining daemon gives, or NotApplicable. */
function confinedNotice(ctx: CheckContext, also?: RegExp): string {
  const notice = ctx.run.hello.notices.find((n) => /sandbox active \(Landlock ABI \d+\)/.test(n));
  if (!notice) throw new NotApplicable("the daemon's notices say no sandbox is active");
  if (also && !also.test(notice)) throw new NotApplicable(`the daemon's sandbox notice does not claim it (${also.source})`);
  return notice;
}

/** Run `script` with the daemon's run tool; its output. */
async function confinedRun(ctx: CheckContext, label: string, script: string): Promise<string> {
  const tool = ctx.tool("run");
  if (!tool) fail("no run tool");
  const { client } = await ctx.session({ label, approve: "approve" });
  const result = await ctx.callTool(client, "run", runArguments(tool, script), { timeoutSeconds: 60, waitMs: 90_000 });
  ctx.see(`${label} output`, result.content);
  return result.content;
}

export const confinementChecks: readonly Check[] = [
  {
    id: "confinement/write-outside",
    level: "MUST",
    requirement: KERNEL_BOUNDARY,
    expected:
      "under a sandbox the daemon says is active, a process its run tool starts cannot create a file outside the workspace and its private directories (the write fails, nothing appears)",
    needs: ["run"],
    notApplicableWhen: "the daemon's notices say no sandbox is active",
    async run(ctx) {
      confinedNotice(ctx);
      const target = join(ctx.run.outside, `confined-${nonce()}`);
      const output = await confinedRun(ctx, "confined-write", `echo escaped > ${shellQuote(target)} && echo WROTE; echo DONE`);
      expect(output.includes("DONE"), "the confined process did not run to its end");
      expect(!existsSync(target) && !output.includes("WROTE"), `a confined process wrote ${target}, outside the workspace`);
      return `the write to ${target} failed; nothing appeared`;
    },
  },
  {
    id: "confinement/read-home",
    level: "MUST",
    requirement: KERNEL_BOUNDARY,
    expected:
      "under a sandbox the daemon says is active, a process its run tool starts cannot read a file in the user's home (the daemon's HOME, when the suite started it) nor anywhere else outside what it was granted",
    needs: ["run"],
    notApplicableWhen: "the daemon's notices say no sandbox is active",
    async run(ctx) {
      confinedNotice(ctx);
      const canary = `venom-confined-canary-${nonce()}`;
      const places = [ctx.run.outside, ...(ctx.target.userHome ? [join(ctx.target.userHome, ".ssh")] : [])];
      const files = places.map((dir) => {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = join(dir, `id_conformance_${nonce()}`);
        writeFileSync(file, `${canary}\n`, { mode: 0o600 });
        return file;
      });
      const output = await confinedRun(ctx, "confined-read", `${files.map((f) => `cat ${shellQuote(f)}`).join("; ")}; echo DONE`);
      expect(output.includes("DONE"), "the confined process did not run to its end");
      expect(!output.includes(canary), `a confined process read ${files.join(" or ")}`);
      return `no byte of ${files.join(", ")} was read`;
    },
  },
  {
    id: "confinement/tcp-none",
    level: "MUST",
    requirement: KERNEL_BOUNDARY,
    expected:
      'when the daemon says TCP bind and connect are refused (network = "none"), a process its run tool starts cannot connect to a TCP server on the loopback: the server sees no connection',
    needs: ["run"],
    notApplicableWhen: "the daemon's notices do not say TCP connect is refused",
    async run(ctx) {
      confinedNotice(ctx, /TCP bind and connect refused/);
      let accepted = 0;
      const server = createServer((socket) => {
        accepted++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as { port: number };
      try {
        const connect = `require("node:net").connect(${port}, "127.0.0.1").on("connect", () => { console.log("CONNECTED"); process.exit(0); }).on("error", (e) => { console.log("refused " + e.code); process.exit(0); })`;
        const output = await confinedRun(ctx, "confined-tcp", `${shellQuote(process.execPath)} -e ${shellQuote(connect)}; echo DONE`);
        expect(output.includes("DONE"), "the confined process did not run to its end");
        expect(accepted === 0 && !output.includes("CONNECTED"), `a confined process connected to 127.0.0.1:${port}`);
        return `the connect to 127.0.0.1:${port} failed (${output.match(/refused \S+/)?.[0] ?? "no connection"}); the server saw none`;
      } finally {
        server.close();
      }
    },
  },
  {
    id: "confinement/signal-outside",
    level: "MUST",
    requirement: KERNEL_BOUNDARY,
    expected:
      "when the daemon says signals cannot reach processes outside the sandbox, a process its run tool starts cannot kill a process of the same user outside it",
    needs: ["run"],
    notApplicableWhen: "the daemon's notices do not say signals are scoped",
    async run(ctx) {
      confinedNotice(ctx, /signals and abstract Unix sockets cannot reach processes outside the sandbox/);
      const victim: ChildProcess = spawn("sleep", ["300"], { stdio: "ignore" });
      try {
        const output = await confinedRun(ctx, "confined-signal", `kill -KILL ${victim.pid}; echo "kill exit $?"; echo DONE`);
        expect(output.includes("DONE"), "the confined process did not run to its end");
        // A kill that got through shows as the victim's exit; give its notice the time to arrive.
        await new Promise((resolve) => {
          victim.once("exit", resolve);
          setTimeout(resolve, 2_000);
        });
        expect(victim.exitCode === null && victim.signalCode === null, `a confined process killed pid ${victim.pid}, outside its sandbox`);
        return `kill of pid ${victim.pid} refused (${output.match(/kill exit \d+/)?.[0]}); it still runs`;
      } finally {
        victim.kill("SIGKILL");
      }
    },
  },
];
