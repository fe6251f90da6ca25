import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@venom/proto";
import { cleanupAll, cli, connect, startMux, type TestDaemon } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const RUNTIME = fileURLToPath(new URL("../../../packages/runtime/dist/index.js", import.meta.url));
const shell = ["--", "bash", "--norc", "--noprofile"];

/**
 * What a hostile program inside a pane runs: every pane method against one
 * target, each outcome (result or error code) written as JSON to `out`.
 */
const ATTACK = `
import { writeFileSync } from "node:fs";
import { VenomClient } from ${JSON.stringify(RUNTIME)};
const [socket, target, out] = process.argv.slice(2);
const client = await VenomClient.connect(socket, { client: { name: "attack", version: "0" } });
const attempts = {
  list: ["pane/list", {}],
  send: ["pane/send", { target, data: "touch PWNED", enter: true }],
  capture: ["pane/capture", { target }],
  resize: ["pane/resize", { target, cols: 50, rows: 10 }],
  rename: ["pane/rename", { target, name: "stolen" }],
  wait: ["pane/wait", { target, timeoutSeconds: 1 }],
  attach: ["pane/attach", { target }],
  kill: ["pane/kill", { target }],
};
const results = {};
for (const [what, [method, params]] of Object.entries(attempts)) {
  try {
    results[what] = { ok: await client.rpc.request(method, params) };
  } catch (error) {
    results[what] = { code: error.code, message: error.message };
  }
}
writeFileSync(out, JSON.stringify(results));
client.close();
`;

type Outcome = { ok?: unknown; code?: number; message?: string };

/** Run the attack in pane `from` against `target`, with an optional env prefix; returns each method's outcome. */
async function attackFrom(mux: TestDaemon, from: string, target: string, envPrefix = ""): Promise<Record<string, Outcome>> {
  const script = join(mux.workspace, "attack.mjs");
  writeFileSync(script, ATTACK);
  const out = join(mux.workspace, `out-${from}-${target}-${envPrefix ? "env" : "plain"}.json`);
  cli(mux, ["send", "-t", from, `${envPrefix}${process.execPath} ${script} ${mux.socket} ${target} ${out}`, "Enter"]);
  await expect.poll(() => existsSync(out), { timeout: 30_000 }).toBe(true);
  return JSON.parse(readFileSync(out, "utf8"));
}

function listed(outcome: Outcome | undefined): string[] {
  return ((outcome?.ok as { panes?: { name: string }[] } | undefined)?.panes ?? []).map((p) => p.name).sort();
}

describe("panes belong to whoever made them", () => {
  it("a delegate in a pane cannot list, type into, capture, resize, rename, wait on, attach to or kill the owner's shell", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "owner", ...shell]);
    cli(mux, ["new", "-d", "-n", "agent", ...shell]);
    const results = await attackFrom(mux, "agent", "owner");
    expect(listed(results.list)).toEqual(["agent"]);
    for (const what of ["send", "capture", "resize", "rename", "wait", "attach", "kill"]) {
      expect(results[what]?.code, what).toBe(ErrorCode.OwnerRequired);
      expect(results[what]?.message, what).toMatch(/belongs to another delegation/);
    }
    // Nothing reached the owner's shell, and the owner still sees and drives every pane.
    expect(existsSync(join(mux.workspace, "PWNED"))).toBe(false);
    expect(cli(mux, ["ls"]).stdout).toMatch(/%0 owner[\s\S]*%1 agent/);
    const owner = await connect(mux);
    expect((await owner.request("pane/capture", { target: "owner" })).text).not.toContain("touch PWNED");
    owner.close();
    await mux.stop();
  });

  it("a delegate acts on its own pane and the panes it made, and a pane it made sees only its own subtree", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "owner", ...shell]);
    cli(mux, ["new", "-d", "-n", "agent", ...shell]);
    cli(mux, ["send", "-t", "agent", `${process.execPath} ${mux.bin} new -d -n child -- bash --norc --noprofile`, "Enter"]);
    await expect.poll(() => cli(mux, ["ls"]).stdout, { timeout: 30_000 }).toMatch(/child/);
    const fromChild = await attackFrom(mux, "child", "agent");
    expect(listed(fromChild.list)).toEqual(["child"]);
    expect(fromChild.send?.code).toBe(ErrorCode.OwnerRequired);
    // Last, since it renames the child.
    const fromAgent = await attackFrom(mux, "agent", "child");
    expect(listed(fromAgent.list)).toEqual(["agent", "child"]);
    // (wait, attach and kill then name "child", which the rename just took away.)
    for (const what of ["send", "capture", "resize", "rename"]) expect(fromAgent[what]?.ok, what).toBeDefined();
    await mux.stop();
  });

  it("a delegate that rewrites VENOM_PARENT to the owner pane's is still judged by its recorded ancestry", async () => {
    const mux = await startMux();
    cli(mux, ["new", "-d", "-n", "owner", ...shell]);
    cli(mux, ["new", "-d", "-n", "agent", ...shell]);
    // Any process of the uid can read the records and learn the owner pane's delegation id.
    const records = readdirSync(join(mux.home, "state", "delegations")).map((f) =>
      JSON.parse(readFileSync(join(mux.home, "state", "delegations", f), "utf8")),
    );
    const ownerParent = records.find((r) => r.label.includes("owner")).parent;
    const results = await attackFrom(mux, "agent", "owner", `VENOM_PARENT=${ownerParent} `);
    expect(listed(results.list)).toEqual(["agent"]);
    expect(results.send?.code).toBe(ErrorCode.OwnerRequired);
    expect(existsSync(join(mux.workspace, "PWNED"))).toBe(false);
    await mux.stop();
  });
});
