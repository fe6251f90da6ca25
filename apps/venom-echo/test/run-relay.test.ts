import type { ApprovalRequest } from "@venom/proto";
import { cleanupAll, cli, connect, MUX_BIN, startEcho, startMux, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("a run's delegates are relayed to the session that started the run", () => {
  it("venom-mux new from a run's process asks the client that started the run, and its answer decides", async () => {
    const home = tempDir("home");
    const workspace = tempDir("ws");
    const [echo, mux] = await Promise.all([startEcho({ home, workspace }), startMux({ home, workspace })]);
    const asked: ApprovalRequest[] = [];
    let newPane: "approve" | "deny" = "deny";
    const client = await connect(echo, {
      gate: async (request) => {
        asked.push(request);
        return request.tool === "run" ? "approve" : newPane;
      },
    });
    const muxNew = (name: string) =>
      client.callTool("run", { argv: [process.execPath, MUX_BIN, "new", "-d", "-n", name, "--", "sleep", "30"] }, { timeoutSeconds: 30 });
    try {
      const refused = await muxNew("denied");
      expect(refused.status).toBe("failed");
      expect(refused.content).toMatch(/venom-mux new: refused: .*the approval for pane\/new was refused/);
      const question = asked.find((a) => a.tool === "pane/new");
      expect(question?.label).toMatch(/^\[mux via echo-[0-9a-f]{8}-[0-9a-f]{8} depth 1\]$/);
      expect(question?.summary).toMatch(/^new pane denied, env delegated \(agent pane\): "sleep" "30" in /);

      newPane = "approve";
      const made = await muxNew("approved");
      expect(made.status, made.content).toBe("ok");
      expect(made.content).toMatch(/^%\d+ approved$/m);
      expect(asked.map((a) => a.tool)).toEqual(["run", "pane/new", "run", "pane/new"]);
      const ls = cli(mux, ["ls"]);
      expect(ls.stdout).toMatch(/ approved: sleep 30 /);
      expect(ls.stdout).not.toContain("denied");
      expect(cli(mux, ["kill", "-t", "approved"]).code).toBe(0);
    } finally {
      client.close();
      await Promise.all([echo.stop(), mux.stop()]);
    }
  });

  it("once the run has ended, its record's questions have nobody to ask", async () => {
    // Nothing outlives the run: a late approval/relay for its record is denied, not put to the client.
    const echo = await startEcho();
    const asked: ApprovalRequest[] = [];
    const client = await connect(echo, {
      gate: async (request) => {
        asked.push(request);
        return "approve";
      },
    });
    try {
      const run = await client.callTool("run", { argv: ["printenv", "VENOM_PARENT"] });
      const record = run.content.trim().split("/")[1] as string;
      expect(record).toMatch(/^echo-/);
      const late = await client.rpc.request("approval/relay", {
        record,
        depth: 1,
        request: { callId: "c", tool: "write", summary: "s", risk: "write", label: "[echo]" },
      });
      expect(late).toEqual({ decision: "deny" });
      expect(asked.map((a) => a.tool)).toEqual(["run"]);
    } finally {
      client.close();
      await echo.stop();
    }
  });
});
