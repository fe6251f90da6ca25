import { spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@venom/proto";
import { cleanupAll, cli, connect, startEcho, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/** Plant something at the workspace's .venom/config.toml, as a repository or an agent could. */
function plant(workspace: string, what: "invalid" | "fifo" | "symlink-out" | "huge"): string {
  const dir = join(workspace, ".venom");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "config.toml");
  if (what === "invalid") writeFileSync(file, "[approval]\nauto_approve = true\n");
  if (what === "huge") writeFileSync(file, `# ${"x".repeat(4 * 1024 * 1024)}\n`);
  if (what === "fifo") spawnSync("mkfifo", [file]);
  if (what === "symlink-out") {
    const outside = join(tempDir("outside"), "config.toml");
    writeFileSync(outside, "[tools]\nmax_read_bytes = 1\n");
    symlinkSync(outside, file);
  }
  return file;
}

describe("a repository can't wedge or lock out the owner (project config)", () => {
  it("an invalid project config written after start is an error on tool calls only; status works and stop stops", async () => {
    const daemon = await startEcho();
    const file = plant(daemon.workspace, "invalid");
    const status = cli(daemon, ["status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(file);
    const call = cli(daemon, ["call", "echo", '{"text":"hi"}']);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain(`${file}: key approval.auto_approve is not allowed`);
    expect(cli(daemon, ["stop"]).code).toBe(0);
    await new Promise((r) => daemon.proc.once("exit", r));
  });

  it("a FIFO, a symlink leading out, or a huge file is never read, the daemon is never blocked, and SIGTERM stops it", async () => {
    for (const what of ["fifo", "symlink-out", "huge"] as const) {
      const daemon = await startEcho();
      const file = plant(daemon.workspace, what);
      // Before the fix a FIFO blocks the event loop inside hello: this connect would never return.
      const client = await connect(daemon);
      const error = await client.callTool("echo", { text: "hi" }).catch((e) => e);
      expect(error.code, what).toBe(ErrorCode.InvalidParams);
      expect(error.message, what).toContain(file);
      expect(error.message, what).toMatch(/not a regular file|over the \d+-byte limit/);
      expect((await client.request("daemon/status")).pid).toBe(daemon.proc.pid);
      client.close();
      daemon.proc.kill("SIGTERM");
      await new Promise((r) => daemon.proc.once("exit", r));
    }
  });

  it("a workspace removed under a running daemon: status says why tool calls are refused, and stop stops", async () => {
    const daemon = await startEcho();
    rmSync(daemon.workspace, { recursive: true });
    const status = cli(daemon, ["status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`${daemon.workspace}: the workspace cannot be opened (ENOENT)`);
    const call = cli(daemon, ["call", "echo", '{"text":"hi"}']);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain("the workspace cannot be opened (ENOENT)");
    expect(cli(daemon, ["stop"]).code).toBe(0);
    await new Promise((r) => daemon.proc.once("exit", r));
  });

  it("a workspace replaced by a symlink under a running daemon is not followed: tools are refused, naming where it now leads", async () => {
    const daemon = await startEcho();
    const outside = tempDir("outside");
    writeFileSync(join(outside, "notes.txt"), "OUTSIDE\n");
    renameSync(daemon.workspace, `${daemon.workspace}.moved`);
    symlinkSync(outside, daemon.workspace);
    const read = cli(daemon, ["call", "read", '{"path":"notes.txt"}']);
    expect(read.stdout).not.toContain("OUTSIDE");
    expect(read.code).toBe(1);
    expect(read.stderr).toContain(`${daemon.workspace}: the workspace now leads to ${realpathSync(outside)}`);
    const status = cli(daemon, ["status"]);
    expect(status.stdout).toContain("it was replaced after the daemon started");
    expect(cli(daemon, ["stop"]).code).toBe(0);
    await new Promise((r) => daemon.proc.once("exit", r));
    // The temp dir the testkit cleans up is now the symlink: the directory moved aside is this test's to remove.
    rmSync(`${daemon.workspace}.moved`, { recursive: true, force: true });
  });

  it("a session whose own workspace has a valid config is unaffected by another workspace's bad one", async () => {
    const daemon = await startEcho();
    plant(daemon.workspace, "invalid");
    const good = tempDir("good");
    const client = await connect(daemon, { workspace: good });
    expect((await client.callTool("echo", { text: "fine" })).content).toBe("fine");
    client.close();
    await daemon.stop();
  });
});
