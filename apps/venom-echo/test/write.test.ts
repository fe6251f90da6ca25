import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, connect, startEcho, type TestDaemon, tempDir } from "@venom/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startEcho();
});
afterAll(async () => {
  await daemon.stop();
  await cleanupAll();
});

const approve = { gate: async () => "approve" as const };
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** The protocol error a request failed with. */
async function remoteError(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return (error as { error: { code: number; message: string; data?: unknown } }).error;
  }
  throw new Error("the request did not fail");
}

describe("write (spec, Tool rules: contained, atomic, bounded)", () => {
  it("asks for approval: no gate is denied and nothing is written; an approved call writes, creating parents", async () => {
    const noGate = await connect(daemon);
    expect((await noGate.callTool("write", { path: "a/b/c.txt", content: "x" })).status).toBe("denied");
    expect(existsSync(join(daemon.workspace, "a"))).toBe(false);
    noGate.close();

    const asked: string[] = [];
    const client = await connect(daemon, {
      gate: async (r) => {
        asked.push(`${r.tool} ${r.risk}: ${r.summary}`);
        return "approve";
      },
    });
    const result = await client.callTool("write", { path: "a/b/c.txt", content: "hello\n" });
    expect(result).toMatchObject({
      status: "ok",
      data: { committed: true, durable: true, created: true, bytes: 6, sha256: sha("hello\n") },
    });
    expect(asked).toEqual(["write write: write a/b/c.txt (6 bytes)"]);
    expect(readFileSync(join(daemon.workspace, "a/b/c.txt"), "utf8")).toBe("hello\n");
    client.close();
  });

  it("under the never policy a write is denied without asking", async () => {
    const strict = await startEcho({ args: ["--policy", "never"] });
    let asked = false;
    const client = await connect(strict, {
      gate: async () => {
        asked = true;
        return "approve";
      },
    });
    const result = await client.callTool("write", { path: "x.txt", content: "x" });
    expect(result.status).toBe("denied");
    expect(result.error?.message).toMatch(/approval policy "never"/);
    expect(asked).toBe(false);
    expect(existsSync(join(strict.workspace, "x.txt"))).toBe(false);
    client.close();
    await strict.stop();
  });

  it("refuses absolute paths, `..`, and a symlinked parent directory that leads out; nothing appears outside", async () => {
    const outside = tempDir("outside");
    symlinkSync(outside, join(daemon.workspace, "escape"));
    const client = await connect(daemon, approve);
    for (const path of [join(outside, "abs.txt"), "../outside.txt", "escape/through-link.txt", "escape/deeper/new.txt"]) {
      const result = await client.callTool("write", { path, content: "pwned" });
      expect(result.status, path).toBe("failed");
    }
    expect(readdirSync(outside)).toEqual([]);
    client.close();
  });

  it("a symlink swapped in concurrently with a loop of writes never lets a file appear outside", async () => {
    const outside = tempDir("outside-race");
    const race = join(daemon.workspace, "race");
    mkdirSync(race);
    let swapping = true;
    let swaps = 0;
    const swapper = (async () => {
      // `race/d` flips between a real directory inside and a symlink to the outside directory.
      while (swapping) {
        const temp = join(race, `t${swaps}`);
        if (swaps % 2 === 0) symlinkSync(outside, temp);
        else mkdirSync(temp);
        try {
          rmSync(join(race, "d"), { recursive: true, force: true });
          renameSync(temp, join(race, "d"));
          swaps++;
        } catch {
          // The write under test recreated `d` in between (it creates missing parents): swap again.
          rmSync(temp, { recursive: true, force: true });
        }
        // Now and then `d` stays a real directory for a moment, so that on a loaded machine,
        // where a write takes longer than many swaps, some writes still land inside.
        const hold = swaps > 0 && swaps % 20 === 0 ? 5 : 0; // after an odd swap: a directory
        await new Promise((r) => (hold ? setTimeout(r, hold) : setImmediate(r)));
      }
    })();
    const client = await connect(daemon, approve);
    let written = 0;
    // 400 writes, and more while none has landed (the race must have had a chance both ways).
    for (let i = 0; i < 400 || (written === 0 && i < 4000); i++) {
      const result = await client.callTool("write", { path: `race/d/f${i}.txt`, content: "inside only" });
      if (result.status === "ok") written++;
    }
    swapping = false;
    await swapper;
    client.close();
    expect(swaps).toBeGreaterThan(50);
    expect(readdirSync(outside)).toEqual([]);
    expect(written).toBeGreaterThan(0);
  });

  it("expectedSha256: a mismatch names both hashes and leaves the file as it was; a match replaces it", async () => {
    const client = await connect(daemon, approve);
    writeFileSync(join(daemon.workspace, "guarded.txt"), "version 1\n");
    const stale = sha("version 0\n");
    const mismatch = await client.callTool("write", { path: "guarded.txt", content: "version 2\n", expectedSha256: stale });
    expect(mismatch.status).toBe("failed");
    expect(mismatch.error?.message).toContain(stale);
    expect(mismatch.error?.message).toContain(sha("version 1\n"));
    expect(mismatch.error?.retry).toBe("allowed"); // with an expected hash the write is idempotent
    expect(readFileSync(join(daemon.workspace, "guarded.txt"), "utf8")).toBe("version 1\n");
    const ok = await client.callTool("write", { path: "guarded.txt", content: "version 2\n", expectedSha256: sha("version 1\n") });
    expect(ok).toMatchObject({ status: "ok", data: { created: false } });
    expect(readFileSync(join(daemon.workspace, "guarded.txt"), "utf8")).toBe("version 2\n");
    client.close();
  });

  it("expectedSha256 on a file over tools.max_read_bytes is refused before it is read, naming both sizes; nothing is written", async () => {
    const small = await startEcho({ config: "[tools]\nmax_read_bytes = 16\n" });
    const client = await connect(small, approve);
    try {
      writeFileSync(join(small.workspace, "big.txt"), "x".repeat(17));
      // Unbounded, the daemon read a file of any size whole to hash it: 6 GiB of memory for a 3 GiB file, every other client waiting.
      const result = await client.callTool("write", { path: "big.txt", content: "y", expectedSha256: sha("x".repeat(17)) });
      expect(result.status).toBe("failed");
      expect(result.error?.message).toBe(
        "big.txt: the file is 17 bytes, over the read limit of 16 (tools.max_read_bytes), so expectedSha256 cannot be checked; nothing was written",
      );
      expect(readFileSync(join(small.workspace, "big.txt"), "utf8")).toBe("x".repeat(17));
      writeFileSync(join(small.workspace, "fits.txt"), "x".repeat(16));
      const fits = await client.callTool("write", { path: "fits.txt", content: "y", expectedSha256: sha("x".repeat(16)) });
      expect(fits.status).toBe("ok");
    } finally {
      client.close();
      await small.stop();
    }
  });

  it("content over tools.max_write_bytes is refused and nothing is written", async () => {
    const small = await startEcho({ config: "[tools]\nmax_write_bytes = 16\n" });
    const client = await connect(small, approve);
    const result = await client.callTool("write", { path: "big.txt", content: "x".repeat(17) });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/17 bytes, over the write limit of 16/);
    expect(existsSync(join(small.workspace, "big.txt"))).toBe(false);
    client.close();
    await small.stop();
  });

  it("base64 content is written decoded; content that is not base64 is refused and the file is left as it was", async () => {
    writeFileSync(join(daemon.workspace, "kept.bin"), "kept\n");
    const client = await connect(daemon, approve);
    expect(
      (await client.callTool("write", { path: "kept.bin", content: Buffer.from("new\n").toString("base64"), encoding: "base64" })).status,
    ).toBe("ok");
    expect(readFileSync(join(daemon.workspace, "kept.bin"), "utf8")).toBe("new\n");
    // Node would decode these to a few bytes or none at all, without a word.
    for (const content of ["!!!", "bmV3Cg", "bm V3Cg==", "bmV3Cg==x"]) {
      const refused = await remoteError(client.callTool("write", { path: "kept.bin", content, encoding: "base64" }));
      expect(refused).toMatchObject({ code: -32602, data: { path: ["arguments", "content"] } });
      expect(refused.message).toMatch(/not valid base64/);
    }
    expect(readFileSync(join(daemon.workspace, "kept.bin"), "utf8")).toBe("new\n");
    client.close();
  });

  it("a daemon killed with SIGKILL mid-write leaves the old content or the new, never a mix", async () => {
    // Each version nearly fills one 1 MiB frame; writes follow each other until the kill.
    const size = 900 * 1024;
    const versions = ["A", "B", "C", "D"].map((c) => c.repeat(size));
    const isTemp = (name: string) => /^\.big\.txt\.venom-[0-9a-f]+\.tmp$/.test(name);
    for (let round = 0; round < 5; round++) {
      const victim = await startEcho();
      const target = join(victim.workspace, "big.txt");
      writeFileSync(target, versions[0] as string);
      const client = await connect(victim, approve);
      const writing = (async () => {
        for (let i = round; ; i++) {
          const result = await client
            .callTool("write", { path: "big.txt", content: versions[1 + (i % 3)] as string })
            .catch(() => undefined);
          if (!result) return;
        }
      })();
      // Freeze the daemon at some moment; when that moment is inside a write (its temp file exists and is not yet renamed
      // into place), kill it there, frozen mid-write: every round really interrupts a write. Otherwise let it go on, and try again.
      await vi.waitFor(
        () => {
          victim.proc.kill("SIGSTOP");
          if (readdirSync(victim.workspace).some(isTemp)) return;
          victim.proc.kill("SIGCONT");
          throw new Error("the daemon was not inside a write");
        },
        { timeout: 30_000, interval: 5 },
      );
      victim.proc.kill("SIGKILL");
      await writing;
      const after = readFileSync(target, "utf8");
      expect(versions.includes(after), `round ${round}: ${after.length} bytes, starts ${after.slice(0, 3)}, ends ${after.slice(-3)}`).toBe(
        true,
      );
      client.close();
    }
  });
});
