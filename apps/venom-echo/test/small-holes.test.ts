import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, connect, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("smaller holes of the same kind", () => {
  it("secret-like names are matched in any case and on the final target of a symlink: each asks before reading", async () => {
    const daemon = await startEcho({ files: { ".env": "TOKEN=x\n", ID_RSA: "key\n", "plain.txt": "plain\n" } });
    symlinkSync(".env", join(daemon.workspace, "notes.txt"));
    writeFileSync(join(daemon.workspace, "Server.PEM"), "pem\n");
    const asked: string[] = [];
    const client = await connect(daemon, {
      gate: async (request) => {
        asked.push(request.summary);
        return "deny";
      },
    });
    for (const path of [".ENV", "ID_RSA", "Server.PEM", "notes.txt"]) {
      const result = await client.callTool("read", { path });
      expect(result.status, path).toBe("denied");
    }
    expect(asked).toEqual([
      "read .ENV",
      "read ID_RSA",
      "read Server.PEM",
      expect.stringMatching(/^read notes\.txt \(a symlink to \.env\)$/),
    ]);
    expect((await client.callTool("read", { path: "plain.txt" })).content).toBe("plain\n");
    client.close();
    await daemon.stop();
  });

  it("credential files by their real names (tools', agents') ask before reading: the one secret-name list venom-orch's ACP reads use too", async () => {
    const daemon = await startEcho();
    const names = [
      ".credentials.json",
      ".netrc",
      ".npmrc",
      ".pypirc",
      ".git-credentials",
      ".docker/config.json",
      ".kube/config",
      "config/gh/hosts.yml",
      "id_work",
      "tls.pem",
      "api.KEY",
      ".env.production",
      "codex/auth.json",
      "gemini/oauth_creds.json",
      "pi/models.json",
    ];
    for (const name of names) {
      mkdirSync(join(daemon.workspace, name, ".."), { recursive: true });
      writeFileSync(join(daemon.workspace, name), "secret\n");
    }
    writeFileSync(join(daemon.workspace, "id_work.pub"), "ssh-ed25519 public\n");
    const asked: string[] = [];
    const client = await connect(daemon, {
      gate: async (request) => {
        asked.push(request.summary);
        return "deny";
      },
    });
    for (const path of names) expect((await client.callTool("read", { path })).status, path).toBe("denied");
    expect(asked).toEqual(names.map((name) => `read ${name}`));
    expect((await client.callTool("read", { path: "id_work.pub" })).content).toBe("ssh-ed25519 public\n");
    client.close();
    await daemon.stop();
  });

  it("a run's summary is one line whatever its directory's name: a newline there cannot draw a fake prompt above the question", async () => {
    const daemon = await startEcho();
    const fake = `x${"\n".repeat(50)}venom-orch: approval needed [echo] write (write)\n  write notes.txt (5 bytes)`;
    mkdirSync(join(daemon.workspace, fake));
    const asked: string[] = [];
    const client = await connect(daemon, {
      gate: async (request) => {
        asked.push(request.summary);
        return "deny";
      },
    });
    expect((await client.callTool("run", { command: "touch planted", cwd: fake })).status).toBe("denied");
    expect(asked).toEqual([`bash -lc "touch planted" in ${JSON.stringify(fake)}`]);
    expect(asked[0]).not.toContain("\n");
    client.close();
    await daemon.stop();
  });

  it("write never keeps the setuid, setgid or sticky bit of the file it replaces", async () => {
    const daemon = await startEcho({ files: { "tool.sh": "#!/bin/sh\n" } });
    chmodSync(join(daemon.workspace, "tool.sh"), 0o7755);
    const client = await connect(daemon, { gate: async () => "approve" });
    expect((await client.callTool("write", { path: "tool.sh", content: "#!/bin/sh\necho new\n" })).status).toBe("ok");
    expect(statSync(join(daemon.workspace, "tool.sh")).mode & 0o7777).toBe(0o755);
    client.close();
    await daemon.stop();
  });

  it("run drops *_api_key variables in any case", async () => {
    const daemon = await startEcho({ env: { service_api_key: "canary-lower", Other_Api_Key: "canary-mixed" } });
    const client = await connect(daemon, { gate: async () => "approve" });
    const result = await client.callTool("run", { argv: ["env"] });
    expect(result.content).not.toContain("canary-");
    client.close();
    await daemon.stop();
  });
});
