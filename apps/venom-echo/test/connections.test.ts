import { spawn } from "node:child_process";
import { PROTOCOL } from "@venom/proto";
import { cleanupAll, cli, connect, RawClient, startEcho } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("bounded connections, fair service", () => {
  it("a connection that never says hello is closed after a few seconds; one that does is kept", async () => {
    const daemon = await startEcho();
    const silent = await RawClient.open(daemon.socket);
    const polite = await RawClient.open(daemon.socket);
    polite.hello();
    await polite.next(1);
    await expect.poll(() => silent.closed, { timeout: 30_000 }).toBe(true);
    expect(polite.closed).toBe(false);
    polite.close();
    await daemon.stop();
  });

  it("delegates filling every connection slot cannot lock the owner out of status and stop", async () => {
    const daemon = await startEcho();
    // A delegate opens far more connections than the limit, each greeted, and holds them.
    const hog = spawn(
      process.execPath,
      [
        "-e",
        `const net = require("node:net");
         let open = 0;
         for (let i = 0; i < 200; i++) {
           const s = net.createConnection(${JSON.stringify(daemon.socket)});
           s.on("connect", () => s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { protocol: ${JSON.stringify(PROTOCOL)}, client: { name: "hog", version: "0" } } }) + "\\n"));
           s.once("data", (d) => {
             const answer = JSON.parse(d.toString().split("\\n")[0]);
             if (answer.id === null) {
               // Refused at the limit: said once, then the connection ends.
               if (!process.refused) process.stdout.write("refused " + JSON.stringify(answer.error) + "\\n");
               process.refused = true;
               s.on("end", () => { if (!process.closed) process.stdout.write("closed after refusal\\n"); process.closed = true; });
             } else if (++open % 10 === 0) process.stdout.write("open " + open + "\\n");
           });
           s.on("error", () => {});
         }
         setInterval(() => {}, 1000);`,
      ],
      { env: { ...process.env, VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "hog/1" }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let heard = "";
    hog.stdout.on("data", (d) => {
      heard += d;
    });
    try {
      // The hog has every slot it can get (the rest were answered busy).
      await expect.poll(() => heard, { timeout: 30_000 }).toMatch(/open 120/);
      // Past the limit a connection is answered busy (-32006, id null) and closed (docs/protocol.md, error codes).
      await expect.poll(() => heard, { timeout: 30_000 }).toMatch(/closed after refusal/);
      expect(heard).toContain('refused {"code":-32006,"message":"busy: at most 128 connections"}');
      const status = cli(daemon, ["status", "--json"]);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).principal.kind).toBe("owner");
      expect(cli(daemon, ["stop"]).code).toBe(0);
    } finally {
      hog.kill("SIGKILL");
    }
  });

  it("the owner's own sessions (venom-orch's, one per job) hold no ordinary slot: with 200 open, a delegate still connects", async () => {
    const daemon = await startEcho();
    const owners = await Promise.all(Array.from({ length: 200 }, () => connect(daemon)));
    try {
      const delegate = cli(daemon, ["status", "--json"], { VENOM_DELEGATION_DEPTH: "1", VENOM_PARENT: "x/y" });
      expect(delegate.code, delegate.stderr).toBe(0);
      expect(JSON.parse(delegate.stdout).connections).toBeGreaterThan(200);
    } finally {
      for (const client of owners) client.close();
    }
    await daemon.stop();
  });
});
