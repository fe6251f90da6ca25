import { readdirSync, readFileSync } from "node:fs";
import { cleanupAll, connect, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** The daemon's children that are `sleep`, zombies included: "<pid> <state>". */
function sleepChildren(daemonPid: number): string[] {
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (stat.includes("(sleep)") && Number(fields[1]) === daemonPid) found.push(`${name} ${fields[0]}`);
  }
  return found;
}

describe("the subreaper reaps every orphan it adopts", () => {
  it("a process that left its group and session, adopted by the daemon, leaves no zombie when it exits", async () => {
    const daemon = await startEcho();
    const pid = daemon.proc.pid as number;
    const client = await connect(daemon, { gate: async () => "approve" });
    // setsid: out of the run's group and session, so nothing but the subreaper adopts it when its parent exits.
    const result = await client.callTool("run", { argv: ["bash", "-c", "setsid sleep 2 & echo started"] });
    expect(result.content).toContain("started");
    await expect.poll(() => sleepChildren(pid).length, { timeout: 20_000 }).toBe(1);
    // Once it exits, it is reaped: no zombie is left behind.
    await expect.poll(() => sleepChildren(pid), { timeout: 30_000 }).toEqual([]);
    client.close();
    await daemon.stop();
  });
});
