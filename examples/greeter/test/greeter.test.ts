import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanupAll, cli, connect, startDaemon, startEcho, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** The example's built CLI, run as a user runs it. */
const GREETER_BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe("a fourth daemon, built on the runtime alone", () => {
  it("serves its own tool on state/greeter.sock, with the greeting its own [greeter] section sets", async () => {
    const daemon = await startDaemon(GREETER_BIN, "greeter", { config: '[greeter]\ngreeting = "ahoy"\n' });
    expect(daemon.socket).toBe(join(daemon.home, "state", "greeter.sock"));
    const client = await connect(daemon);
    try {
      expect(client.hello.snapshot.tools.map((tool) => tool.name)).toEqual(["greet"]);
      expect(await client.callTool("greet", { name: "Ada" })).toMatchObject({ status: "ok", content: "ahoy, Ada" });
      await expect(client.callTool("greet", { name: 7 })).rejects.toMatchObject({ code: -32602 });
    } finally {
      client.close();
    }
    const cliCall = cli({ env: daemon.env, bin: GREETER_BIN }, ["call", "greet", '{"name":"Grace"}']);
    expect(cliCall).toMatchObject({ code: 0, stdout: "ahoy, Grace\n" });
    await daemon.stop();
  });

  it("a bad value in its section stops its start with an error naming the file and the key", () => {
    const home = tempDir("home");
    const env = { ...process.env, VENOM_HOME: home };
    const config = join(home, "config.toml");
    const started = cli({ env, bin: GREETER_BIN }, ["start", "--workspace", tempDir("ws")], {});
    expect(started.code, started.stderr).toBe(0);
    expect(cli({ env, bin: GREETER_BIN }, ["stop"]).code).toBe(0);
    // The same home, now with a greeting that is not text.
    writeFileSync(config, "[greeter]\ngreeting = 42\n");
    const refused = cli({ env, bin: GREETER_BIN }, ["start", "--workspace", tempDir("ws")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`${config}: key greeter.greeting: .*string`));
    expect(existsSync(join(home, "state", "greeter.sock"))).toBe(false);
  });

  it("the apps of one home leave each other's sections alone: venom-echo serves beside [greeter], the greeter beside [mux] and [agents]", async () => {
    const config = '[greeter]\ngreeting = "hi"\n[mux]\nprefix = "C-a"\n[agents.helper]\nexecutable = "/bin/true"\n';
    const greeter = await startDaemon(GREETER_BIN, "greeter", { config });
    const echo = await startEcho({ home: greeter.home, workspace: greeter.workspace });
    const client = await connect(echo);
    try {
      expect((await client.callTool("echo", { text: "still here" })).content).toBe("still here");
    } finally {
      client.close();
    }
    await echo.stop();
    await greeter.stop();
  });
});
