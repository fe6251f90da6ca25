import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, tempDir } from "@venom/testkit";
import { ASK, DETACH } from "@venom/testkit/escape";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "./stack.js";

afterAll(cleanupAll);

describe("venom-orch under Landlock confinement (docs/security-model.md, Confinement)", () => {
  it("an agent confined by its own [agents.NAME] sandbox gets no unconfined agent by asking venom-orch", async () => {
    const outside = tempDir("outside");
    const realHome = tempDir("real-home");
    writeFileSync(join(realHome, "secret"), "PRIVATE-KEY-CANARY\n");
    // An unconfined agent's config: it tries to write outside the workspace and read a key in the real home.
    const breakOut = (name: string) => `echo HOME=$HOME; echo x > ${outside}/${name}; cat ${realHome}/secret; echo FREE-DONE`;
    const ask = (params: unknown) => `${process.execPath} ask.cjs "$VENOM_HOME/state/orch.sock" tools/call '${JSON.stringify(params)}'`;
    const free = (name: string) => ({ name: "agent", arguments: { agent: `free-${name}`, prompt: "go" } });
    // The confined agent asks venom-orch for the free agent twice: as itself, then from a process that
    // double-forked away from its pane and cleared its environment (no ancestry, no markers).
    const boxed = [
      ask(free("asked")),
      `sh detach.sh ${ask(free("detached"))} > detached.out`,
      "while ! grep -q ANSWER detached.out 2>/dev/null; do sleep 0.2; done; cat detached.out",
      "echo BOXED-DONE",
    ].join("; ");
    const stack = await startStack({
      config: [
        `[agents.boxed]\nexecutable = "/bin/sh"\nargs = ${JSON.stringify(["-c", boxed])}\nsandbox = "landlock"\n`,
        ...["asked", "detached"].map(
          (name) => `[agents.free-${name}]\nexecutable = "/bin/sh"\nargs = ${JSON.stringify(["-c", breakOut(`by-${name}`)])}\n`,
        ),
      ].join("\n"),
      env: { HOME: realHome },
    });
    writeFileSync(join(stack.workspace, "ask.cjs"), ASK);
    writeFileSync(join(stack.workspace, "detach.sh"), DETACH);
    // The person approves everything (the relay brings the confined agent's request here): only confinement stands in the way.
    const { client } = await stack.person();
    try {
      const result = await client.callTool("agent", { agent: "boxed", prompt: "go" }, { timeoutSeconds: 120 });
      const screen = String(result.content);
      expect(screen).toContain("BOXED-DONE");
      // The agent venom-orch started for it ran (the person approved it), confined as the confined agent is.
      expect(screen).toMatch(/NOTICE your delegation is confined \(1 Landlock layer\)/);
      expect(screen).toMatch(/ANSWER ".*FREE-DONE/);
      expect(screen).toMatch(/by-asked: Permission denied/);
      expect(existsSync(join(outside, "by-asked"))).toBe(false);
      expect(screen).not.toContain("PRIVATE-KEY-CANARY");
      // In the confined agent's private home, the one directory of its own its sandbox lets it write.
      expect(screen).toContain(`HOME=${join(stack.home, "agents", "boxed")}`);
      // Known by nothing but no_new_privs, it is refused: nothing is started for it.
      expect(screen).toMatch(/NOTICE you run under no_new_privs.*: Venom does nothing for you: no tool, no pane, no management/);
      expect(screen).toMatch(/ANSWER "refused: you run under no_new_privs/);
      expect(existsSync(join(outside, "by-detached"))).toBe(false);
      expect(stack.runs("free-detached")).toEqual([]);
    } finally {
      client.close();
    }
  });

  it("an agent's sandbox turned on in config.toml after venom-mux started: venom-orch refuses to launch it rather than claim confinement venom-mux would not apply", async () => {
    const outside = tempDir("outside");
    const stack = await startStack({
      config: `[agents.drift]\nexecutable = "/bin/sh"\nargs = ["-c", "echo x > ${outside}/escaped; echo DRIFT-DONE"]\n`,
    });
    const config = join(stack.home, "config.toml");
    writeFileSync(config, `${readFileSync(config, "utf8")}sandbox = "landlock"\n`);
    // Only venom-orch is restarted: venom-mux, which applies the confinement, still runs with what it read at its start.
    const restarted = cli({ env: stack.orch.env, bin: stack.orch.bin }, ["restart"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const { client } = await stack.person();
    try {
      expect(client.hello.notices.join("\n")).toMatch(/agent drift \(\[agents\.drift\] sandbox\): sandbox active/);
      const refused = await client.callTool("agent", { agent: "drift", prompt: "go" });
      expect(refused.status).toBe("failed");
      expect(refused.error?.message).toMatch(
        /refused: venom-mux does not confine as venom-orch's configuration says.*restart it \(venom-mux restart\)/,
      );
      expect(existsSync(join(outside, "escaped"))).toBe(false);
      // Once venom-mux has read the configuration too, the agent runs, confined.
      expect(cli({ env: stack.mux.env, bin: stack.mux.bin }, ["restart"]).code).toBe(0);
      const confined = await client.callTool("agent", { agent: "drift", prompt: "go" });
      expect(confined.content).toMatch(/escaped: Permission denied/);
      expect(existsSync(join(outside, "escaped"))).toBe(false);
    } finally {
      client.close();
      // The daemons restart started are not the test's children: stopped here, or they would outlive the tests.
      cli({ env: stack.orch.env, bin: stack.orch.bin }, ["stop"]);
      cli({ env: stack.mux.env, bin: stack.mux.bin }, ["stop"]);
    }
  });
});
