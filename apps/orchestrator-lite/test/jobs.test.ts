import { mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { VenomHome } from "@venom/runtime";
import { cleanupAll, cli, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { type JobRecord, JobStore } from "../src/jobs.js";
import { startStack } from "./stack.js";

afterAll(cleanupAll);

function job(id: string, state: JobRecord["state"], note: string | null = null): JobRecord {
  return {
    id,
    name: `demo-${id}`,
    agent: "demo",
    cwd: "/",
    state,
    background: false,
    launcher: { depth: 0 },
    lineage: [],
    pid: null,
    exitCode: null,
    signal: null,
    startedAt: new Date().toISOString(),
    endedAt: null,
    note,
    transport: "cli",
    refusedRequests: 0,
    pending: null,
    host: null,
    hostBase: null,
    worktree: null,
  };
}

function store(): JobStore {
  return new JobStore(new VenomHome(tempDir("jobs")).ensure());
}

const onFile = (jobs: { dir: string }, id: string) => JSON.parse(readFileSync(join(jobs.dir, `${id}.json`), "utf8")) as JobRecord;

describe("job records", () => {
  it("end on file with the last record saved, however many are saved before one is written, and are listed newest first", async () => {
    const jobs = store();
    const saves = Array.from({ length: 30 }, (_, i) => jobs.save(job("a1", i < 29 ? "running" : "done", `step ${i}`)));
    // Not yet on file: listed as saved all the same.
    expect(jobs.load().map((j) => [j.id, j.state, j.note])).toEqual([["a1", "done", "step 29"]]);
    await Promise.all(saves);
    expect(onFile(jobs, "a1")).toMatchObject({ state: "done", note: "step 29" });
    // Every write renamed its temp file over the record: none is left behind.
    expect(readdirSync(jobs.dir)).toEqual(["a1.json"]);
  });

  it("reject a write that fails, leave no temp file, and still make the write queued behind it", async () => {
    const jobs = store();
    // A directory where the record goes: the rename over it fails.
    mkdirSync(join(jobs.dir, "b1.json"), { recursive: true });
    const failing = jobs.save(job("b1", "running"));
    // Begun by the next turn of the event loop; a record saved now waits for it.
    await new Promise((resolve) => setImmediate(resolve));
    const next = jobs.save(job("b1", "failed", "after a failed write"));
    await expect(failing).rejects.toThrow(/b1\.json/);
    rmdirSync(join(jobs.dir, "b1.json"));
    await next;
    expect(onFile(jobs, "b1")).toMatchObject({ state: "failed", note: "after a failed write" });
    expect(readdirSync(jobs.dir)).toEqual(["b1.json"]);
  });

  it("hold a job's end before its launcher hears of it", async () => {
    const stack = await startStack();
    const jobs = { dir: join(stack.home, "state", "orch-jobs") };
    // Read the moment the end's progress event arrives, before anything else runs.
    const onFileAtEnd: string[] = [];
    const { client } = await stack.person(undefined, {
      onEvent: (method, params) => {
        const { job, state } = params as { job: string; state: string };
        if (method === "event/agent" && state === "done") onFileAtEnd.push(onFile(jobs, job).state);
      },
    });
    expect((await client.callTool("agent", { agent: "demo", prompt: "hello" })).status).toBe("ok");
    expect(onFileAtEnd).toEqual(["done"]);
    client.close();
  });

  it("a job in a directory whose name escapes to the longest record is listed and can be cancelled, also after a restart", async () => {
    const stack = await startStack();
    // Control bytes are 6 bytes each in JSON: 15 components of 250 make a record of over 22 KiB.
    const deep = join(...Array.from({ length: 15 }, () => "\x01".repeat(250)));
    mkdirSync(join(stack.workspace, deep), { recursive: true });
    const { client } = await stack.person();
    const started = await client.callTool("agent", { agent: "demo", prompt: "hold in-a-deep-dir", cwd: deep, background: true });
    expect(started.status).toBe("ok");
    const name = (started.data as { name: string }).name;
    const listed = async () => ((await client.callTool("agent_jobs", {})).data as { jobs: JobRecord[] }).jobs;
    await expect.poll(async () => (await listed()).find((j) => j.name === name)?.state, { timeout: 30_000 }).toBe("running");
    expect((await client.callTool("agent_cancel", { job: name })).status).toBe("ok");
    await expect.poll(async () => (await listed()).find((j) => j.name === name)?.state, { timeout: 30_000 }).toBe("cancelled");
    client.close();
    // Read back from its file by a new venom-orch: still there, so its label is not given again.
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    expect(cli(orch, ["restart"]).code).toBe(0);
    try {
      const { client: after } = await stack.person();
      const again = await after.callTool("agent", { agent: "demo", prompt: "hello" });
      expect((again.data as { name: string }).name).not.toBe(name);
      expect(((await after.callTool("agent_jobs", {})).data as { jobs: JobRecord[] }).jobs.map((j) => j.name)).toContain(name);
      after.close();
    } finally {
      // The daemon restart started is not the test's child: stopped here, or it would outlive the tests.
      cli(orch, ["stop"]);
    }
  });
});

describe("restart --when-idle", () => {
  it("from a background job's pane waits while another job runs, and restarts once it ended", async () => {
    const stack = await startStack();
    const orch = { env: stack.orch.env, bin: stack.orch.bin };
    const { client } = await stack.person();
    const before = client.hello.instance;
    const listed = async () => ((await client.callTool("agent_jobs", {})).data as { jobs: JobRecord[] }).jobs;
    const stateOf = async (name: string) => (await listed()).find((j) => j.name === name)?.state;
    const launch = async (prompt: string) =>
      ((await client.callTool("agent", { agent: "demo", prompt, background: true })).data as { name: string }).name;
    try {
      const work = await launch("hold working");
      await expect.poll(() => stateOf(work), { timeout: 30_000 }).toBe("running");
      const asker = await launch("restart-when-idle orch");
      await expect.poll(() => stateOf(asker), { timeout: 30_000 }).toBe("done");
      // Same daemon, and the other job runs on.
      expect((await client.request("daemon/status")).instance).toBe(before);
      expect(await stateOf(work)).toBe("running");
      expect((await client.callTool("agent_cancel", { job: work })).status).toBe("ok");
      // Once no job runs, it restarts: a new instance answers on the same socket.
      await expect
        .poll(
          () => {
            const now = cli(orch, ["status", "--json"]);
            return now.code === 0 ? JSON.parse(now.stdout).instance : before;
          },
          { timeout: 30_000 },
        )
        .not.toBe(before);
    } finally {
      client.close();
      // The daemon the restart started is not the test's child: stopped here, or it would outlive the tests.
      cli(orch, ["stop"]);
    }
  });
});
