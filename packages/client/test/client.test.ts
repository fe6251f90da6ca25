import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApprovalRequest } from "@venom/proto";
import { cleanupAll, startEcho, startMux, startOrch, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { Jobs, Panes, Tools } from "../src/index.js";

const DEMO_AGENT = fileURLToPath(new URL("../../../apps/orchestrator-lite/agents/demo-agent.mjs", import.meta.url));

afterAll(cleanupAll);

// A program that behaves as an agent's TUI for the workflow: a prompt, then a task pasted, then quiet, then /exit N.
const AGENT = `
process.stdout.write("agent> ");
let text = "";
process.stdin.setRawMode?.(true);
process.stdin.on("data", (d) => {
  text += d;
  const exit = /\\/exit (\\d+)\\r/.exec(text);
  if (exit) process.exit(Number(exit[1]));
  if (text.includes("tests\\r")) { process.stdout.write("\\r\\ndone: " + text.split("\\r").filter(Boolean).length + " lines\\r\\nagent> "); text = ""; }
});`;

describe("@venom/client", () => {
  it("drives a pane through the whole agent workflow over one connection: new in a subdirectory, wait for the prompt, paste, quiet, last lines, exit code, kill", async () => {
    const mux = await startMux();
    mkdirSync(join(mux.workspace, "sub"));
    const panes = await Panes.connect({ home: mux.home });
    try {
      const pane = await panes.newPane({
        name: "agent",
        cwd: join(mux.workspace, "sub"),
        cols: 100,
        rows: 30,
        argv: [process.execPath, "-e", AGENT],
      });
      expect(pane).toMatchObject({ name: "agent", cols: 100, rows: 30 });
      expect(await panes.wait("agent", { for: /^agent>/ })).toMatchObject({ reason: "match" });
      await panes.paste("agent", "split the tokens\nthen run the tests\n");
      expect((await panes.wait("agent", { quietMs: 200 })).reason).toBe("quiet");
      expect(await panes.lastLines("agent", 2)).toEqual(["done: 2 lines", "agent>"]);
      const seen: string[] = [];
      const stop = await panes.watch("agent", (data) => seen.push(data));
      await panes.send("agent", "/exit 3", "Enter");
      expect(await panes.exitCode("agent", 10)).toBe(3);
      await stop().catch(() => undefined);
      expect(seen.join("")).toContain("agent>");
      await panes.kill("agent");
      expect(await panes.list()).toEqual([]);
    } finally {
      panes.close();
    }
  });

  it("the example orchestrator in docs/client.md runs the workflow against a real daemon, and the docs show it as it is", async () => {
    const mux = await startMux();
    mkdirSync(join(mux.workspace, "sub"));
    const example = fileURLToPath(new URL("../examples/workflow.mjs", import.meta.url));
    const run = spawnSync(
      process.execPath,
      [
        example,
        "--cwd",
        "sub",
        "--prompt",
        "^agent>",
        "--task",
        "split the tokens\nthen run the tests\n",
        "--",
        process.execPath,
        "-e",
        AGENT,
      ],
      { env: mux.env, cwd: mux.workspace, encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("agent>\ndone: 2 lines\nagent>\nexit code: 3\n");
    const docs = readFileSync(new URL("../../../docs/client.md", import.meta.url), "utf8");
    expect(docs).toContain(`\`\`\`js\n${readFileSync(example, "utf8")}\`\`\``);
  });

  it("a wait that times out says so; a pane that is not there is the daemon's error, naming it", async () => {
    const mux = await startMux();
    const panes = await Panes.connect({ home: mux.home });
    try {
      await panes.newPane({ name: "idle", argv: ["sleep", "30"] });
      expect((await panes.wait("idle", { for: /never/, timeoutSeconds: 0.3 })).reason).toBe("timeout");
      await expect(panes.capture("nosuch")).rejects.toThrow(/nosuch/);
      expect((await panes.list()).map((p) => p.name)).toEqual(["idle"]);
    } finally {
      panes.close();
    }
  });

  it("approvals are a callback: a write asks it, and its answer decides", async () => {
    const echo = await startEcho();
    const asked: ApprovalRequest[] = [];
    let answer: "approve" | "deny" = "deny";
    const tools = await Tools.connect({
      home: echo.home,
      approve: (request) => {
        asked.push(request);
        return answer;
      },
    });
    try {
      expect(await tools.list()).toEqual(["echo", "read", "run", "write"]);
      expect((await tools.call("write", { path: "a.txt", content: "no" })).status).toBe("denied");
      answer = "approve";
      expect((await tools.call("write", { path: "a.txt", content: "yes" })).status).toBe("ok");
      expect(readFileSync(join(echo.workspace, "a.txt"), "utf8")).toBe("yes");
      expect(asked.map((request) => request.tool)).toEqual(["write", "write"]);
    } finally {
      tools.close();
    }
  });

  it("a home with no daemon running fails to connect, naming its socket", async () => {
    const home = tempDir("nothing-here");
    await expect(Panes.connect({ home })).rejects.toThrow(join(home, "state", "mux.sock"));
  });

  it("runs an agent through venom-orch: its launch asks the callback, progress comes as events, the job is listed", async () => {
    const orch = await startOrch({ config: `[agents.demo]\nexecutable = "${DEMO_AGENT}"\n` });
    const asked: string[] = [];
    const jobs = await Jobs.connect({
      home: orch.home,
      approve: (request) => {
        asked.push(request.tool);
        return "approve";
      },
    });
    try {
      const progress: string[] = [];
      jobs.onProgress((event) => progress.push(`${event.name} ${event.state}`));
      const result = await jobs.run("demo", "hello there");
      expect(result).toMatchObject({ status: "ok", data: { name: "demo-1", result: "ok", exitCode: 0 } });
      expect(asked).toEqual(["agent"]);
      expect(progress[0]).toBe("demo-1 starting");
      expect(progress.at(-1)).toBe("demo-1 done");
      expect((await jobs.list()).map((job) => [job.name, job.state])).toEqual([["demo-1", "done"]]);
    } finally {
      jobs.close();
    }
  });
});
