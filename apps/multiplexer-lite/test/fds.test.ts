import { existsSync } from "node:fs";
import { join } from "node:path";
import type { VenomClient } from "@venom/runtime";
import { cleanupAll, cli, connect, LEAKED_FD, startMux } from "@venom/testkit";
import { comm, openFds } from "@venom/testkit/proc";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

const BOXED_AGENT = '[agents.boxed]\nexecutable = "/bin/true"\nsandbox = { mode = "landlock" }\n';

/**
 * The fds of a pane's program once it runs (venom-pty-exec or the sandbox launcher has exec'd it)
 * and holds only 0-2. Its dynamic loader holds a library open for a moment after the exec; a
 * leaked fd stays, so a pane that keeps one fails after the timeout with what it holds.
 */
async function expectOwnFdsOnly(pid: number, program: string): Promise<void> {
  await expect.poll(() => (comm(pid) === program ? openFds(pid) : `not yet ${program}`), { timeout: 20_000 }).toEqual([0, 1, 2]);
}

async function screen(client: VenomClient, target: string): Promise<string> {
  return (await client.request("pane/capture", { target, join: true })).text;
}

describe("venom-mux: a pane's program holds no fd of venom-mux's (docs/security-model.md, Descriptors)", () => {
  it("a pane, a pipe pane and a confined pane each hold only fds 0-2, while other panes and clients are open and the daemon inherited an fd", async () => {
    const mux = await startMux({ config: BOXED_AGENT, execThrough: LEAKED_FD });
    const clients = await Promise.all([connect(mux), connect(mux), connect(mux)]);
    try {
      const [client] = clients;
      await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile"], name: "first" });
      const plain = await client.request("pane/new", { argv: ["sleep", "300"], name: "plain" });
      const pipe = await client.request("pane/new", { argv: ["sleep", "300"], name: "pipe", mode: "pipe", envPolicy: "delegated" });
      const confined = await client.request("pane/new", { argv: ["sleep", "300"], name: "boxed", agent: "boxed", envPolicy: "delegated" });
      await expectOwnFdsOnly(plain.pid, "sleep");
      await expectOwnFdsOnly(pipe.pid, "sleep");
      await expectOwnFdsOnly(confined.pid, "sleep");
    } finally {
      for (const client of clients) client.close();
      await mux.stop();
    }
  });

  it("a program in one pane cannot type into another pane: it finds no pty master to write a command into", async () => {
    const mux = await startMux();
    const client = await connect(mux);
    try {
      const pwned = join(mux.workspace, "pwned");
      await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile"], name: "owner" });
      // The attack: every /dev/ptmx among its own fds is another pane's terminal; what is written there is typed into it.
      const attack = [
        "n=0",
        `for f in /proc/$$/fd/*; do fd=\${f##*/}; if [ "$(readlink "$f")" = /dev/ptmx ]; then echo "touch ${pwned}" >&"$fd"; n=$((n+1)); fi; done`,
        'echo "ptmx fds written: $n"',
        "sleep 300",
      ].join("; ");
      await client.request("pane/new", { argv: ["bash", "--norc", "--noprofile", "-c", attack], name: "intruder" });
      await expect.poll(() => screen(client, "intruder"), { timeout: 20_000 }).toMatch(/ptmx fds written: \d+/);
      expect(await screen(client, "intruder")).toContain("ptmx fds written: 0");
      // Whatever the intruder typed would have run before this line does.
      expect(cli(mux, ["send", "-t", "owner", "echo OWNER-DONE", "Enter"]).code).toBe(0);
      await expect.poll(() => screen(client, "owner"), { timeout: 20_000 }).toMatch(/^OWNER-DONE$/m);
      expect(existsSync(pwned)).toBe(false);
    } finally {
      client.close();
      await mux.stop();
    }
  });
});
