import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, MUX_BIN, ORCH_BIN } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "./stack.js";

afterAll(cleanupAll);

const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8" });

describe("venom-orch inbox on a terminal", () => {
  it("answers, defers, shows details, attaches and comes back; two inboxes open at once stay live; the launching terminal is told", async () => {
    const stack = await startStack();
    const env = Object.entries({ VENOM_HOME: stack.home, HOME: stack.userHome }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const orch = `${process.execPath} ${ORCH_BIN}`;
    const sessions = {
      mux: `inbox-mux-${process.pid}`,
      fg: `inbox-fg-${process.pid}`,
      one: `inbox-1-${process.pid}`,
      two: `inbox-2-${process.pid}`,
    };
    /** A terminal of 160x40 in tmux running `shell` in this stack's home, as a person's would. */
    const terminal = (session: string, shell: string) =>
      tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", ...env, "sh", "-c", shell);
    const screen = (session: string) => tmux("capture-pane", "-p", "-J", "-t", session).stdout;
    const poll = (session: string, pattern: RegExp) => expect.poll(() => screen(session), { timeout: 30_000 }).toMatch(pattern);
    const { client } = await stack.person((request) => (request.tool === "agent" ? "approve" : "deny"));
    let later = "";
    let denied = "";
    try {
      // A person watching a pane in venom-mux: its status line counts what waits for them, and the bell rings.
      expect(cli({ env: stack.mux.env, bin: MUX_BIN }, ["new", "-d", "-n", "watch", "--", "sleep", "300"]).code).toBe(0);
      tmux("new-session", "-d", "-s", sessions.mux, "-x", "120", "-y", "20", ...env, process.execPath, MUX_BIN, "attach", "-t", "watch");
      await poll(sessions.mux, /\[\S+\] 0:watch\*/);
      const bell = () => tmux("display", "-p", "-t", sessions.mux, "#{window_bell_flag}").stdout.trim();
      expect(bell()).toBe("0");
      for (const prompt of ["write a.txt A", "write b.txt B"]) {
        expect((await client.callTool("agent", { agent: "demo", prompt, background: true })).status).toBe("ok");
      }
      await poll(sessions.mux, /\[\S+\] \[2 to approve\] 0:watch\*/);
      expect(bell()).toBe("1");

      // A foreground run on its own terminal: its write is asked there and waits in the inbox too.
      terminal(sessions.fg, `cd ${stack.workspace} && ${orch} run demo 'write c.txt C'; echo RUN-EXIT=$?; sleep 60`);
      await poll(sessions.fg, /Allow this call \(agent\)\?/);
      tmux("send-keys", "-t", sessions.fg, "y", "Enter");
      await poll(sessions.fg, /Allow this call \(write\)\?/);

      for (const session of [sessions.one, sessions.two]) {
        terminal(session, `${orch} inbox; echo INBOX-EXIT=$?; sleep 60`);
        await poll(session, /venom-orch inbox: 3 waiting/);
      }
      // Newest first: the foreground job's write is selected. Approved here, its terminal is told and goes on.
      expect(screen(sessions.one)).toMatch(/^> demo-3 {2}\[echo via demo-3 depth 1\] {2}write \(write\)/m);
      tmux("send-keys", "-t", sessions.one, "y");
      await poll(sessions.fg, /write: approved in the inbox[\s\S]*RUN-EXIT=0/);
      expect(readFileSync(join(stack.workspace, "c.txt"), "utf8")).toBe("C");
      await poll(sessions.two, /venom-orch inbox: 2 waiting/);

      // The two background jobs asked in whichever order their agents got there: the newest is selected. d leaves it
      // for later, so the other comes first, and n denies that one.
      await poll(sessions.one, /^> demo-[12] /m);
      later = /^> (demo-[12]) /m.exec(screen(sessions.one))?.[1] as string;
      denied = later === "demo-1" ? "demo-2" : "demo-1";
      const file = (name: string) => (name === "demo-1" ? { path: "a.txt", text: "A" } : { path: "b.txt", text: "B" });
      tmux("send-keys", "-t", sessions.one, "d");
      await poll(sessions.one, new RegExp(`^> ${denied} `, "m"));
      expect(screen(sessions.one)).toMatch(new RegExp(`${later} .*\\(later\\)`));
      tmux("send-keys", "-t", sessions.one, "n");
      await poll(sessions.one, /venom-orch inbox: 1 waiting/);
      await poll(sessions.two, /venom-orch inbox: 1 waiting/);
      expect(existsSync(join(stack.workspace, file(denied).path))).toBe(false);

      // Enter: the details (the job's prompt among them); any key goes back.
      tmux("send-keys", "-t", sessions.one, "Enter");
      await poll(sessions.one, new RegExp(`Prompt\\s+write ${file(later).path.replace(".", "\\.")} ${file(later).text}`));
      tmux("send-keys", "-t", sessions.one, "x");
      await poll(sessions.one, /venom-orch inbox: 1 waiting/);

      // a: the job's pane, through venom-mux's attach; C-b d comes back to the inbox.
      tmux("send-keys", "-t", sessions.one, "a");
      await poll(sessions.one, new RegExp(`\\[1 to approve\\] .*\\d+:${later}\\*`));
      tmux("send-keys", "-t", sessions.one, "C-b", "d");
      await poll(sessions.one, /venom-orch inbox: 1 waiting/);

      // The other inbox answers the last one; this one sees it go.
      tmux("send-keys", "-t", sessions.two, "y");
      await poll(sessions.one, /nothing waits for you/);
      await expect.poll(() => existsSync(join(stack.workspace, file(later).path)), { timeout: 30_000 }).toBe(true);
      tmux("send-keys", "-t", sessions.one, "q");
      await poll(sessions.one, /INBOX-EXIT=0/);
      await poll(sessions.mux, /\[\S+\] 0:watch\*/);
    } finally {
      for (const session of Object.values(sessions)) tmux("kill-session", "-t", session);
      client.close();
    }
    const history = JSON.parse(
      spawnSync(process.execPath, [ORCH_BIN, "history", "--json"], { env: stack.orch.env, encoding: "utf8" }).stdout,
    ).entries as { name: string; decision: string; by: string }[];
    expect(history.map((e) => [e.name, e.decision, e.by])).toEqual([
      ["demo-3", "approve", "inbox"],
      [denied, "deny", "inbox"],
      [later, "approve", "inbox"],
    ]);
  });
});
