import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRequest, PROTOCOL } from "@venom/proto";
import { cleanupAll, cli, connect, startEcho, startMux, tempDir } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/**
 * A pane's agent that leaves a delegate behind: the pane's program starts it
 * in a session of its own (setsid), so the pane's group stop does not reach it
 * (docs/security-model.md, "Process-group cleanup is cooperative"), and exits
 * once a line is typed. The delegate, still the pane's descendant when it says
 * hello, asks venom-echo for a write (the question is relayed to venom-mux,
 * which asks the person who made the pane), writes its pid to `<out>.pid` and
 * the answer to `out`, then exits.
 */
const AGENT = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const [role, socket, out] = process.argv.slice(2);
if (role === "pane") {
  spawn(process.execPath, [__filename, "delegate", socket, out], { detached: true, stdio: "ignore" }).unref();
  process.stdin.once("data", () => process.exit(0));
} else {
  fs.writeFileSync(out + ".pid", String(process.pid));
  const s = net.createConnection(socket);
  let buf = "";
  s.on("data", (d) => {
    buf += d;
    for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
      const m = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (m.id === 2) {
        fs.writeFileSync(out, JSON.stringify(m.result ?? m.error));
        process.exit(0);
      }
    }
  });
  s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: "${PROTOCOL}", client: { name: "delegate", version: "0" } } }) + "\\n");
  s.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "write", arguments: { path: "left-behind.txt", content: "x" } } }) + "\\n");
}
`;

function logMessages(home: string): string[] {
  return readFileSync(join(home, "logs", "mux.log"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line).msg);
}

describe("venom-mux: restart --when-idle and relayed approvals", () => {
  it("waits while a relayed approval waits for the person, also once no pane runs, and restarts once the person answered", async () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const [echo, mux] = await Promise.all([startEcho({ home, workspace }), startMux({ home, workspace })]);
    const asked: ApprovalRequest[] = [];
    let answer: ((decision: "approve") => void) | undefined;
    const person = await connect(mux, {
      gate: (request) => {
        asked.push(request);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    });
    const out = join(tempDir("out"), "answer.json");
    try {
      const script = join(tempDir("agent"), "agent.cjs");
      writeFileSync(script, AGENT);
      await person.request("pane/new", { name: "agent", argv: [process.execPath, script, "pane", echo.socket, out] });
      await expect.poll(() => asked.length, { timeout: 30_000 }).toBe(1);
      expect(asked[0]?.label).toBe("[echo via agent depth 1]");

      // The pane's program exits; its delegate lives on, and its question still waits for the person.
      expect(cli(mux, ["send", "-t", "agent", "done", "Enter"]).code).toBe(0);
      await expect.poll(() => cli(mux, ["ls"]).stdout, { timeout: 30_000 }).toMatch(/^%0 agent: .* exited/m);
      const owner = await connect(mux);
      const before = (await owner.request("daemon/status")) as { pid: number; instance: string };
      expect(await owner.request("daemon/restart", { whenIdle: true })).toEqual({ scheduled: true, whenIdle: true });
      // The daemon decided in the turn it logged the request: a restart would have logged "stopping" in that same turn.
      await expect.poll(() => logMessages(home), { timeout: 30_000 }).toContain("restart requested");
      expect(logMessages(home)).not.toContain("stopping");
      expect(await owner.request("daemon/status")).toMatchObject({ pid: before.pid, instance: before.instance });
      expect(existsSync(out)).toBe(false);

      // The person answers: the delegate's write is done, and with nothing left waiting the daemon restarts.
      answer?.("approve");
      await expect.poll(() => (existsSync(out) ? JSON.parse(readFileSync(out, "utf8")).status : null), { timeout: 30_000 }).toBe("ok");
      expect(readFileSync(join(workspace, "left-behind.txt"), "utf8")).toBe("x");
      await expect
        .poll(
          () => {
            const now = cli(mux, ["status", "--json"]);
            return now.code === 0 ? JSON.parse(now.stdout).pid : before.pid;
          },
          { timeout: 30_000 },
        )
        .not.toBe(before.pid);
      expect(cli(mux, ["stop"]).code).toBe(0);
    } finally {
      answer?.("approve");
      person.close();
      const delegate = existsSync(`${out}.pid`) ? Number(readFileSync(`${out}.pid`, "utf8")) : null;
      if (delegate !== null && alive(delegate)) process.kill(delegate, "SIGKILL");
      await Promise.all([echo.stop(), mux.stop()]);
    }
  }, 120_000);
});
