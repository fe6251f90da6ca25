import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanupAll, connect } from "@venom/testkit";
import { DETACH_KEEPING_ENV } from "@venom/testkit/escape";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "./stack.js";

const RUNTIME = fileURLToPath(new URL("../../../packages/runtime/dist/index.js", import.meta.url));

/**
 * What a program in a pane runs: `launch` starts a background demo job through
 * venom-orch; `look` writes the panes venom-mux lists and the jobs venom-orch
 * lists for it to `out`.
 */
const PROBE = `
import { renameSync, writeFileSync } from "node:fs";
import { VenomClient } from ${JSON.stringify(RUNTIME)};
const [mode, mux, orch, out] = process.argv.slice(2);
// Whole or not there: the test reads it as soon as it exists.
const put = (value) => {
  writeFileSync(out + ".tmp", JSON.stringify(value));
  renameSync(out + ".tmp", out);
};
const open = (socket) => VenomClient.connect(socket, { client: { name: "probe", version: "0" } });
const o = await open(orch);
if (mode === "launch") {
  const started = await o.callTool("agent", { agent: "demo", prompt: "sleep 60", background: true });
  put(started.data ?? started.content);
} else {
  const m = await open(mux);
  const panes = (await m.rpc.request("pane/list", {})).panes.map((p) => p.name).sort();
  const jobs = (await o.callTool("agent_jobs", {})).data.jobs.map((j) => j.name).sort();
  put({ panes, jobs });
  m.close();
}
o.close();
`;

afterAll(cleanupAll);

describe("venom-mux and venom-orch show a delegate the same delegation (packages/runtime/src/visibility.ts)", () => {
  it("a delegate sees its own subtree's panes and jobs in both; another delegation claiming its VENOM_PARENT sees neither, a process of its own out of its tree sees both", async () => {
    const stack = await startStack();
    const ws = stack.workspace;
    writeFileSync(join(ws, "probe.mjs"), PROBE);
    writeFileSync(join(ws, "detach.sh"), DETACH_KEEPING_ENV);
    const probe = (mode: string, out: string) => `${process.execPath} probe.mjs ${mode} ${stack.mux.socket} ${stack.orch.socket} ${out}`;
    const read = async (out: string) => {
      await expect.poll(() => existsSync(join(ws, out)), { timeout: 30_000 }).toBe(true);
      return JSON.parse(readFileSync(join(ws, out), "utf8"));
    };
    // The person's shells; their approvals (a launch from beta) come to this session.
    const owner = await connect(stack.mux, { gate: async () => "approve" as const });
    const shell = ["bash", "--norc", "--noprofile"];
    await owner.request("pane/new", { name: "alpha", argv: shell });
    await owner.request("pane/new", { name: "beta", argv: shell });
    const type = (target: string, data: string) => owner.request("pane/send", { target, data, enter: true });

    // beta makes a pane and launches a job: its delegation's subtree.
    await type("beta", `${process.execPath} ${stack.mux.bin} new -d -n beta-child -- sleep 60`);
    await type("beta", probe("launch", "launched.json"));
    expect(await read("launched.json")).toMatchObject({ name: "demo-1" });
    await type("beta", probe("look", "beta.json"));
    expect(await read("beta.json")).toEqual({ panes: ["beta", "beta-child"], jobs: ["demo-1"] });

    // alpha rewrites VENOM_PARENT to beta's (any process of the uid can read the records): its ancestry decides, in both.
    const records = readdirSync(join(stack.home, "state", "delegations")).map((f) =>
      JSON.parse(readFileSync(join(stack.home, "state", "delegations", f), "utf8")),
    );
    const betaParent = records.find((r) => r.label.endsWith(" beta]")).parent;
    await type("alpha", `VENOM_PARENT=${betaParent} ${probe("look", "alpha.json")}`);
    expect(await read("alpha.json")).toEqual({ panes: ["alpha"], jobs: [] });

    // A process of beta's that left its process tree (re-parented to venom-mux) with beta's environment:
    // no ancestry leads back, the environment does, and both daemons take it for beta alike.
    await type("beta", `sh detach.sh ${probe("look", "escaped.json")}`);
    expect(await read("escaped.json")).toEqual({ panes: ["beta", "beta-child"], jobs: ["demo-1"] });
    owner.close();
    await Promise.all([stack.orch.stop(), stack.mux.stop(), stack.echo.stop()]);
  });
});
