import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, connect, startEcho, type TestDaemon, tempDir } from "@venom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startEcho({ files: { "hello.txt": "hello inside\n", ".env": "TOKEN=inside-secret\n" } });
});
afterAll(async () => {
  await daemon.stop();
  await cleanupAll();
});

const PASSWD = readFileSync("/etc/passwd", "utf8");

describe("read is contained in the session workspace (spec, Tool rules)", () => {
  it("reads a file inside, with its sha256", async () => {
    const client = await connect(daemon);
    const result = await client.callTool("read", { path: "hello.txt" });
    expect(result).toMatchObject({ status: "ok", content: "hello inside\n", data: { bytes: 13, truncated: false } });
    expect(result.data?.sha256).toMatch(/^[0-9a-f]{64}$/);
    client.close();
  });

  it.each([
    ["/etc/passwd", /absolute paths are refused/],
    ["../../../../etc/passwd", /parent traversal/],
    ["sub/../../etc/passwd", /parent traversal/],
  ])("refuses %s before any syscall", async (path, message) => {
    const client = await connect(daemon);
    const result = await client.callTool("read", { path });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(message);
    client.close();
  });

  it("refuses symlinks that lead out: absolute, relative, chained, and /proc magic links", async () => {
    mkdirSync(join(daemon.workspace, "links"), { recursive: true });
    symlinkSync("/etc/passwd", join(daemon.workspace, "links/abs"));
    symlinkSync("../../../../../../etc/passwd", join(daemon.workspace, "links/rel"));
    symlinkSync("abs", join(daemon.workspace, "links/chain"));
    symlinkSync("/proc/self/root/etc/passwd", join(daemon.workspace, "links/magic"));
    symlinkSync("/etc", join(daemon.workspace, "links/etcdir"));
    const client = await connect(daemon);
    for (const path of ["links/abs", "links/rel", "links/chain", "links/magic", "links/etcdir/passwd"]) {
      const result = await client.callTool("read", { path });
      expect(result.status, path).toBe("failed");
      expect(result.error?.message, path).toMatch(/outside the workspace|magic link/);
      expect(result.content).not.toContain("root:");
    }
    // Positive control: a symlink that stays inside still works.
    symlinkSync("../hello.txt", join(daemon.workspace, "links/inside"));
    expect((await client.callTool("read", { path: "links/inside" })).content).toBe("hello inside\n");
    client.close();
  });

  it("a symlink swapped in while reads run in a loop never returns a byte of the outside file", async () => {
    const dir = join(daemon.workspace, "race");
    mkdirSync(dir);
    writeFileSync(join(dir, "real"), "INSIDE\n");
    const target = join(dir, "target");
    writeFileSync(target, "INSIDE\n");
    let swapping = true;
    let swaps = 0;
    const swapper = (async () => {
      // Alternate target between a regular file inside and a symlink to /etc/passwd, atomically by rename.
      while (swapping) {
        const temp = join(dir, `t${swaps}`);
        if (swaps % 2 === 0) symlinkSync("/etc/passwd", temp);
        else writeFileSync(temp, "INSIDE\n");
        renameSync(temp, target);
        swaps++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const client = await connect(daemon);
    let escapes = 0;
    let insides = 0;
    for (let i = 0; i < 600; i++) {
      const result = await client.callTool("read", { path: "race/target" });
      if (result.content.includes("root:") || result.content.includes(PASSWD.slice(0, 20))) escapes++;
      if (result.content === "INSIDE\n") insides++;
    }
    swapping = false;
    await swapper;
    client.close();
    expect(swaps).toBeGreaterThan(50);
    expect(escapes).toBe(0);
    // The race was real: some reads saw the inside file, so the loop exercised both states.
    expect(insides).toBeGreaterThan(0);
  });

  it("a secret-like path needs approval: no gate denies, a gate is asked and decides", async () => {
    const noGate = await connect(daemon);
    const denied = await noGate.callTool("read", { path: ".env" });
    expect(denied.status).toBe("denied");
    expect(denied.content).toBe("");
    noGate.close();

    const asked: string[] = [];
    const refuse = await connect(daemon, {
      gate: async (request) => {
        asked.push(`${request.label} ${request.tool} ${request.risk}: ${request.summary}`);
        return "deny";
      },
    });
    expect((await refuse.callTool("read", { path: ".env" })).status).toBe("denied");
    expect(asked).toEqual(["[echo] read secret-read: read .env"]);
    refuse.close();

    const approve = await connect(daemon, { gate: async () => "approve" });
    expect((await approve.callTool("read", { path: ".env" })).content).toBe("TOKEN=inside-secret\n");
    approve.close();
  });

  it("a read is bounded by tools.max_read_bytes and says it was cut", async () => {
    const small = await startEcho({ config: "[tools]\nmax_read_bytes = 10\n", files: { "big.txt": "x".repeat(100) } });
    const client = await connect(small);
    const result = await client.callTool("read", { path: "big.txt" });
    expect(result.content).toMatch(/^x{10}\n\[read cut: 100 bytes, first 10 returned\]$/);
    expect(result.data).toMatchObject({ truncated: true, bytes: 100 });
    client.close();
    await small.stop();
  });

  it("the owner may name another existing workspace in hello, and reads are contained there", async () => {
    const other = tempDir("other");
    writeFileSync(join(other, "there.txt"), "other workspace\n");
    const client = await connect(daemon, { workspace: other });
    expect((await client.callTool("read", { path: "there.txt" })).content).toBe("other workspace\n");
    expect((await client.callTool("read", { path: "hello.txt" })).status).toBe("failed");
    client.close();
  });

  it("a project's .venom/config.toml can disable a tool, and a key it may not set is refused by name", async () => {
    const project = tempDir("project");
    mkdirSync(join(project, ".venom"));
    writeFileSync(join(project, ".venom", "config.toml"), '[tools]\ndisabled = ["read"]\n');
    const client = await connect(daemon, { workspace: project });
    expect(client.hello.grant.tools).toEqual(["echo", "run", "write"]);
    await expect(client.callTool("read", { path: "x" })).rejects.toMatchObject({ code: -32005 });
    client.close();
    writeFileSync(join(project, ".venom", "config.toml"), "[approval]\nauto_approve = true\n");
    const refused = await connect(daemon, { workspace: project });
    await expect(refused.callTool("echo", { text: "x" })).rejects.toThrow(/config.toml: key approval.auto_approve is not allowed/);
    refused.close();
  });
});
