import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, tempDir } from "@venom/testkit";
import { impostorDaemon, NOBODY } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** A fresh home as the user would have it: 0700, owned by us. */
function home(): { home: string; env: NodeJS.ProcessEnv; workspace: string } {
  const dir = tempDir("home");
  return { home: dir, env: { ...process.env, VENOM_HOME: dir }, workspace: tempDir("ws") };
}

/** `start`; if an attack let the daemon start, stop it so the test leaves nothing running. */
function start(env: NodeJS.ProcessEnv, workspace: string) {
  const result = cli({ env }, ["start", "--workspace", workspace]);
  if (result.code === 0) cli({ env }, ["stop"]);
  return result;
}

describe("a home you don't own is refused (hostile VENOM_HOME)", () => {
  it("a home or state/logs directory writable by group or others is refused, naming the path, and nothing is chmod-ed back", () => {
    for (const sub of ["", "state", "logs", "state/delegations"]) {
      const { home: root, env, workspace } = home();
      const dir = join(root, sub);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o777);
      const result = start(env, workspace);
      expect(result.code, `${sub}: ${result.stdout}`).not.toBe(0);
      expect(result.stderr).toContain(dir);
      expect(result.stderr).toMatch(/writable by group or others/);
      // Refused, not repaired: a file planted while it was open stays planted, so Venom must not pretend it is safe.
      expect(readdirSync(join(root)).includes("state") && existsSync(join(root, "state", "echo.sock"))).toBe(false);
    }
  });

  it("a directory owned by another uid is refused, naming the path and the owner", () => {
    const { home: root, env, workspace } = home();
    mkdirSync(join(root, "logs"), { mode: 0o700 });
    chownSync(join(root, "logs"), NOBODY, NOBODY);
    const result = start(env, workspace);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(join(root, "logs"));
    expect(result.stderr).toMatch(/owned by uid 65534/);
  });

  it("a directory replaced by a symlink is refused, never followed", () => {
    const { home: root, env, workspace } = home();
    const elsewhere = tempDir("elsewhere");
    symlinkSync(elsewhere, join(root, "logs"));
    const result = start(env, workspace);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/is a symlink/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a log file planted as a symlink is refused and the file it points at is never written", () => {
    const { home: root, env, workspace } = home();
    const victim = join(tempDir("victim"), "victim.txt");
    writeFileSync(victim, "untouched\n");
    mkdirSync(join(root, "logs"), { mode: 0o700 });
    symlinkSync(victim, join(root, "logs", "echo.log"));
    const result = start(env, workspace);
    expect(result.code).not.toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });

  it("config.toml as a symlink or a FIFO is an error naming it, never followed and never waited on", () => {
    for (const plant of ["symlink", "fifo"] as const) {
      const { home: root, env, workspace } = home();
      const file = join(root, "config.toml");
      if (plant === "symlink") {
        const target = join(tempDir("target"), "config.toml");
        writeFileSync(target, "[approval]\npolicy = 'never'\n");
        symlinkSync(target, file);
      } else spawnSync("mkfifo", [file]);
      const result = cli({ env }, ["serve", "--workspace", workspace]);
      // Without the fix the FIFO blocks `serve` until the testkit's 30 s timeout kills it (status null).
      expect(result.code, plant).toBe(1);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toMatch(/not a regular file/);
    }
  });

  it("a socket path longer than sun_path is an error naming the limit, for the daemon and for clients", () => {
    const root = join(tempDir("h"), "x".repeat(100));
    mkdirSync(root, { mode: 0o700 });
    const env = { ...process.env, VENOM_HOME: root };
    const started = start(env, tempDir("ws"));
    expect(started.code).not.toBe(0);
    expect(started.stderr).toMatch(/107 bytes/);
    // No silently truncated socket was bound anywhere.
    expect(
      existsSync(join(root, "state")) ? readdirSync(join(root, "state")).filter((f) => f.includes("sock") || f.startsWith("ec")) : [],
    ).toEqual([]);
    const status = cli({ env }, ["status"]);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/107 bytes/);
  });

  it("the client checks the server's uid (SO_PEERCRED) before sending hello", async () => {
    const { home: root, env } = home();
    // The client's own check does not depend on the home's modes.
    const impostor = await impostorDaemon(root, "echo");
    try {
      const result = cli({ env }, ["status"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/uid 65534/);
      // The impostor saw the connection end, and before that the client wrote nothing.
      await expect.poll(() => impostor.heard(), { timeout: 20_000 }).toContain("CLOSED");
      expect(impostor.heard()).not.toContain("GOT");
    } finally {
      impostor.kill();
    }
  });
});
