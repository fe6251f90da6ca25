import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanupAll, cli, connect, startDaemon, startEcho, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const approve = { gate: async () => "approve" as const };
const CONFINED = '[sandbox]\nmode = "landlock"\nnetwork = "none"\n';
const WITHOUT_LANDLOCK = createRequire(import.meta.url).resolve("@venom/testkit/without-landlock.mjs");
const ECHO_MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** A stand-in for the user's real home, with a key in it. */
function realHome(): string {
  const home = tempDir("real-home");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE-KEY-CANARY\n");
  return home;
}

describe('run under [sandbox] mode = "landlock" (docs/security-model.md, Confinement)', () => {
  it("hello and status state what is confined and with which ABI; a run cannot write outside the workspace or read the real home", async () => {
    const home = realHome();
    const outside = tempDir("outside");
    const daemon = await startEcho({ config: CONFINED, env: { HOME: home } });
    const client = await connect(daemon, approve);
    const notice = client.hello.notices.join("\n");
    expect(notice).toMatch(/^sandbox active \(Landlock ABI \d+\): every process Venom starts/m);
    expect(notice).toMatch(/network: TCP bind and connect refused/);
    // The build compiled the C launcher, so the notice names it, not the Node fallback.
    expect(notice).toMatch(/; launcher: venom-sandbox \(C, \/.*\/packages\/native\/dist\/venom-sandbox\)$/m);
    expect(notice).not.toMatch(/no sandbox is active/);
    expect(JSON.parse(cli(daemon, ["status", "--json"]).stdout).notices.join("\n")).toMatch(/sandbox active \(Landlock ABI \d+\)/);

    const result = await client.callTool("run", {
      command: `echo in > inside; echo out > ${outside}/escaped; cat ${home}/.ssh/id_ed25519; echo HOME=$HOME; exit 0`,
    });
    expect(result.status).toBe("ok");
    expect(result.content).toMatch(/escaped: Permission denied/);
    expect(result.content).toMatch(/id_ed25519: Permission denied/);
    expect(result.content).not.toContain("PRIVATE-KEY-CANARY");
    expect(result.content).toContain(`HOME=${join(daemon.home, "agents", "run")}\n`);
    expect(existsSync(join(daemon.workspace, "inside"))).toBe(true);
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    client.close();
    await daemon.stop();
  });

  it("a project can turn confinement on for its workspace, but not off: the error names its file and key", async () => {
    const on = await startEcho();
    mkdirSync(join(on.workspace, ".venom"));
    writeFileSync(join(on.workspace, ".venom", "config.toml"), '[sandbox]\nmode = "landlock"\n');
    const client = await connect(on, approve);
    expect(client.hello.notices.join("\n")).toMatch(/sandbox active \(Landlock ABI \d+\)/);
    const outside = tempDir("outside");
    expect((await client.callTool("run", { command: `echo x > ${outside}/f; exit 0` })).content).toMatch(/Permission denied/);
    client.close();
    await on.stop();

    const off = await startEcho({ config: CONFINED });
    mkdirSync(join(off.workspace, ".venom"));
    const project = join(off.workspace, ".venom", "config.toml");
    writeFileSync(project, '[sandbox]\nmode = "off"\n');
    // The session keeps its handshake, but runs nothing, naming the file and key.
    const refused = await connect(off, approve);
    await expect(refused.callTool("run", { argv: ["true"] })).rejects.toThrow(`${project}: key sandbox.mode: cannot be "off"`);
    refused.close();
    await off.stop();
  });

  it("fails closed: on a kernel without Landlock the daemon says so and refuses every run, and nothing runs", async () => {
    const daemon = await startDaemon(WITHOUT_LANDLOCK, "echo", { config: CONFINED, env: { WITHOUT_LANDLOCK_SCRIPT: ECHO_MAIN } });
    const client = await connect(daemon, approve);
    expect(client.hello.notices.join("\n")).toMatch(
      /^no sandbox is active and none can be: sandbox.mode is "landlock" but this kernel has no Landlock .*; every process launch is refused$/m,
    );
    const result = await client.callTool("run", { command: "touch ran" });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe(
      'refused: sandbox.mode is "landlock" but this kernel has no Landlock (landlock_create_ruleset: ENOSYS); nothing was started',
    );
    expect(existsSync(join(daemon.workspace, "ran"))).toBe(false);
    client.close();
    await daemon.stop();
  });
});
