import { cleanupAll, cli, startOrch } from "@venom/testkit";
import { alive } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "./stack.js";

afterAll(cleanupAll);

describe("venom-orch killed mid-run", () => {
  it("venom-mux stops that owner's agent panes, and a restarted venom-orch reports what was stopped", async () => {
    const stack = await startStack();
    const { client } = await stack.person();
    await client.callTool("agent", { agent: "demo", prompt: "sleep 60", background: true });
    let pid = 0;
    await expect
      .poll(
        async () => {
          const jobs = (await client.callTool("agent_jobs", {})).data?.jobs as { state: string; pid: number | null }[];
          pid = jobs[0]?.pid ?? 0;
          return jobs[0]?.state;
        },
        { timeout: 30_000 },
      )
      .toBe("running");
    expect(alive(pid)).toBe(true);
    // The pane is visible in venom-mux as the job's label while it runs.
    expect(cli({ env: stack.mux.env, bin: stack.mux.bin }, ["ls"]).stdout).toMatch(/demo-1: .*demo-agent\.mjs/);

    stack.orch.proc.kill("SIGKILL");
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false);
    expect(cli({ env: stack.mux.env, bin: stack.mux.bin }, ["ls"]).stdout).not.toMatch(/demo-1/);

    const again = await startOrch({ home: stack.home, workspace: stack.workspace, env: stack.orch.env });
    const status = cli({ env: again.env, bin: again.bin }, ["status"]);
    expect(status.stdout).toMatch(/1 job\(s\) were running when venom-orch last ended; venom-mux stopped their panes: demo-1/);
    const jobs = cli({ env: again.env, bin: again.bin }, ["jobs"]);
    expect(jobs.stdout).toMatch(/demo-1 cancelled .*venom-orch ended while this job ran; venom-mux stopped its pane/);
    // The next job's label does not reuse the lost one's.
    const next = cli({ env: again.env, bin: again.bin }, ["run", "demo", "hi", "--yes"]);
    expect(next.stdout).toMatch(/^demo-2: done/);
    client.close();
  });
});
