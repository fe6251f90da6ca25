import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "@venom/proto";
import { cleanupAll, cli, startOrch } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./stack.js";

afterAll(cleanupAll);

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });
const orchCli = (stack: Stack, args: string[]) => cli({ env: stack.orch.env, bin: stack.orch.bin }, args);

/** The stack's workspace as a repository: a.txt of ten lines, committed on main. */
function repository(stack: Stack): string[] {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
  git(stack.workspace, "init", "-q", "-b", "main");
  git(stack.workspace, "config", "user.email", "person@example.com");
  git(stack.workspace, "config", "user.name", "Person");
  writeFileSync(join(stack.workspace, "a.txt"), `${lines.join("\n")}\n`);
  git(stack.workspace, "add", "a.txt");
  git(stack.workspace, "commit", "-qm", "ten lines");
  return lines;
}

/** The prompt that makes the demo agent put a.txt with `lines`, as an agent's own edit would. */
const put = (lines: string[]) => `put a.txt ${lines.join("\\n")}\\n`;

function jobs(stack: Stack): Record<string, { state: string; worktree: Record<string, unknown> | null }> {
  const listed = JSON.parse(orchCli(stack, ["jobs", "--json"]).stdout).jobs as {
    name: string;
    state: string;
    worktree: Record<string, unknown> | null;
  }[];
  return Object.fromEntries(listed.map((j) => [j.name, j]));
}

describe("parallel agents in worktrees", () => {
  it("three agents change one file in worktrees of their own; each result shows its own diff; two merge, the third stops on its conflict", async () => {
    const stack = await startStack();
    const lines = repository(stack);
    const asked: ApprovalRequest[] = [];
    const { client } = await stack.person((request) => {
      asked.push(request);
      return "approve";
    });
    const changes = [
      lines.map((l, i) => (i === 0 ? "first, by demo-1" : l)),
      lines.map((l, i) => (i === 9 ? "last, by demo-2" : l)),
      lines.map((l, i) => (i === 0 ? "first, by demo-3" : l)),
    ];
    for (const change of changes) {
      const started = await client.callTool("agent", { agent: "demo", prompt: put(change), background: true, worktree: true });
      expect(started.status, started.content).toBe("ok");
    }
    // The approval names the repository, the base commit and where the worktree goes.
    const base = git(stack.workspace, "rev-parse", "--short=12", "HEAD").trim();
    expect(asked[0]?.summary).toContain(
      `in a new git worktree of ${stack.workspace} from ${base}: .venom/worktrees/LABEL on branch venom/LABEL`,
    );
    await expect.poll(() => Object.values(jobs(stack)).map((j) => j.state), { timeout: 30_000 }).toEqual(["done", "done", "done"]);

    const all = jobs(stack);
    for (const name of ["demo-1", "demo-2", "demo-3"]) {
      expect(all[name]?.worktree).toMatchObject({
        repo: stack.workspace,
        path: join(stack.workspace, ".venom", "worktrees", name),
        branch: `venom/${name}`,
        commits: [],
        stat: expect.stringMatching(/a\.txt \| 2 \+-/),
      });
    }
    // Each diff is its own; the main checkout is untouched and does not list the worktrees.
    expect(orchCli(stack, ["diff", "demo-1"]).stdout).toMatch(/-line 1\n\+first, by demo-1/);
    expect(orchCli(stack, ["diff", "demo-2"]).stdout).toMatch(/-line 10\n\+last, by demo-2/);
    expect(readFileSync(join(stack.workspace, "a.txt"), "utf8")).toBe(`${lines.join("\n")}\n`);
    expect(git(stack.workspace, "status", "--porcelain")).toBe("");

    const first = orchCli(stack, ["merge", "demo-1", "--yes"]);
    expect(first.stdout).toMatch(/^committed demo-1's uncommitted work on venom\/demo-1; fast-forwarded venom\/demo-1 into main/);
    const second = orchCli(stack, ["merge", "demo-2", "--yes"]);
    expect(second.stdout).toMatch(/^committed demo-2's uncommitted work on venom\/demo-2; merged venom\/demo-2 into main/);
    expect(readFileSync(join(stack.workspace, "a.txt"), "utf8")).toMatch(/^first, by demo-1\n[\s\S]*last, by demo-2\n$/);
    const third = orchCli(stack, ["merge", "demo-3", "--yes"]);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/venom\/demo-3 does not merge cleanly into main; everything is as it was/);
    expect(git(stack.workspace, "status", "--porcelain")).toBe("");
    // demo-3's work is as it was: uncommitted in its worktree, so clean refuses without --force.
    expect(git(join(stack.workspace, ".venom", "worktrees", "demo-3"), "log", "--oneline", "main..HEAD")).toBe("");
    expect(git(stack.workspace, "rev-parse", "--short=12", "venom/demo-3").trim()).toBe(base);
    expect(orchCli(stack, ["clean", "demo-3", "--yes"]).stderr).toMatch(/has uncommitted changes; --force removes them too/);
    expect(orchCli(stack, ["clean", "demo-3", "--yes", "--force"]).code).toBe(0);
    expect(existsSync(join(stack.workspace, ".venom", "worktrees", "demo-3"))).toBe(false);
    expect(git(stack.workspace, "branch", "--list", "venom/demo-3")).toBe("");
    expect(jobs(stack)["demo-3"]?.worktree).toMatchObject({ removed: true });
    client.close();
  });

  it("a confined agent in a worktree commits, its branch follows, and it writes no branch, nor the main checkout and its hooks", async () => {
    // An agent that runs its prompt as a shell command, under its own Landlock sandbox: that lets it write the whole
    // workspace, and the repository is the workspace.
    const stack = await startStack({
      config: `[agents.shell]\nexecutable = "/bin/sh"\nargs = ["-c", 'eval "$0"']\nsandbox = "landlock"\n`,
    });
    repository(stack);
    const main = stack.workspace;
    const mainHead = git(main, "rev-parse", "HEAD").trim();
    // Another job's branch, beside this job's own in venom/.
    git(main, "branch", "venom/another");
    const attempts = [
      "echo by-the-agent >> a.txt && git add a.txt && git -c user.name=Agent -c user.email=agent@example.com commit -qm by-the-agent && echo COMMITTED",
      `echo overwritten > ${main}/a.txt || echo MAIN-FILE-REFUSED`,
      "git update-ref refs/heads/main HEAD || echo MAIN-BRANCH-REFUSED",
      "git update-ref refs/heads/venom/another HEAD || echo SIBLING-BRANCH-REFUSED",
      "git update-ref refs/heads/venom/shell-1 HEAD || echo OWN-BRANCH-REFUSED",
      `echo 'touch ${main}/hooked' > ${main}/.git/hooks/post-checkout || echo HOOK-REFUSED`,
      `echo '[core]' >> ${main}/.git/config || echo CONFIG-REFUSED`,
    ];
    const { client } = await stack.person();
    const result = await client.callTool("agent", { agent: "shell", prompt: attempts.join("; "), worktree: true });
    expect(result.status, result.content).toBe("ok");
    const refused = ["MAIN-FILE", "MAIN-BRANCH", "SIBLING-BRANCH", "OWN-BRANCH", "HOOK", "CONFIG"].map((what) => `${what}-REFUSED`);
    for (const said of ["COMMITTED", ...refused]) expect(result.content).toContain(said);
    // It committed on the worktree's detached HEAD; venom-orch moved its branch there when it ended.
    expect(git(main, "log", "--format=%s", "-1", "venom/shell-1").trim()).toBe("by-the-agent");
    expect(git(main, "rev-parse", "main", "venom/another").trim().split("\n")).toEqual([mainHead, mainHead]);
    expect(readFileSync(join(main, "a.txt"), "utf8")).not.toContain("overwritten");
    expect(existsSync(join(main, ".git", "hooks", "post-checkout"))).toBe(false);
    // What it committed merges as any job's: the person decides.
    expect(orchCli(stack, ["merge", "shell-1", "--yes"]).stdout).toMatch(/fast-forwarded venom\/shell-1 into main/);
    expect(readFileSync(join(main, "a.txt"), "utf8")).toContain("by-the-agent");
    client.close();
  });

  it("a worktree with its branch checked out (made by an earlier venom-orch) merges its commits", async () => {
    const stack = await startStack();
    repository(stack);
    const { client } = await stack.person();
    expect((await client.callTool("agent", { agent: "demo", prompt: "hello", worktree: true })).status).toBe("ok");
    const path = join(stack.workspace, ".venom", "worktrees", "demo-1");
    git(path, "checkout", "-q", "venom/demo-1");
    writeFileSync(join(path, "b.txt"), "on the branch\n");
    git(path, "add", "b.txt");
    git(path, "commit", "-qm", "on the checked-out branch");
    expect(orchCli(stack, ["merge", "demo-1", "--yes"]).stdout).toMatch(/^fast-forwarded venom\/demo-1 into main/);
    expect(git(stack.workspace, "log", "--format=%s", "-1")).toBe("on the checked-out branch\n");
    client.close();
  });

  it("without --worktree, a second job in the same checkout is told another job runs there", async () => {
    const stack = await startStack();
    repository(stack);
    const summaries: string[] = [];
    const { client } = await stack.person((request) => {
      summaries.push(request.summary);
      return "approve";
    });
    await client.callTool("agent", { agent: "demo", prompt: "hold here", background: true });
    await expect.poll(() => jobs(stack)["demo-1"]?.state, { timeout: 20_000 }).toBe("running");
    await client.callTool("agent", { agent: "demo", prompt: "hello", background: true });
    expect(summaries[1]).toContain("another job is running in this checkout (demo-1): both may write the same files");
    expect(summaries[0]).not.toContain("another job");
    expect(orchCli(stack, ["cancel", "demo-1", "--yes"]).code).toBe(0);
    client.close();
  });

  it("a restarted venom-orch lists the worktrees of the jobs it lost, and clean removes them", async () => {
    const stack = await startStack();
    repository(stack);
    const { client } = await stack.person();
    await client.callTool("agent", { agent: "demo", prompt: "hold in-a-worktree", background: true, worktree: true });
    await expect.poll(() => jobs(stack)["demo-1"]?.state, { timeout: 20_000 }).toBe("running");
    client.close();
    // The next venom-orch starts once this one is gone, as `venom-orch start` after a crash would.
    const gone = new Promise((resolve) => stack.orch.proc.once("exit", resolve));
    stack.orch.proc.kill("SIGKILL");
    await gone;
    const again = await startOrch({ home: stack.home, workspace: stack.workspace, env: stack.orch.env });
    const status = cli({ env: again.env, bin: again.bin }, ["status"]);
    expect(status.stdout).toMatch(/their worktrees remain: demo-1 \(venom-orch diff, merge or clean JOB; \.venom\/worktrees\/LABEL\)/);
    expect(cli({ env: again.env, bin: again.bin }, ["clean", "demo-1", "--yes"]).code).toBe(0);
    expect(existsSync(join(stack.workspace, ".venom", "worktrees", "demo-1"))).toBe(false);
    expect(git(stack.workspace, "worktree", "list")).not.toContain("demo-1");
  });

  it("the inbox's details of a worktree job's question show its branch and what it changed so far", async () => {
    const stack = await startStack();
    repository(stack);
    const { client } = await stack.person((request) => (request.tool === "agent" ? "approve" : "deny"));
    await client.callTool("agent", { agent: "demo", prompt: "write note.txt hi", background: true, worktree: true, branch: "notes" });
    await expect.poll(async () => (await client.request("inbox/list", {})).questions.length, { timeout: 20_000 }).toBe(1);
    const [question] = (await client.request("inbox/list", {})).questions;
    const details = await client.request("inbox/details", { id: question?.id as string });
    expect(details.worktree).toMatchObject({
      branch: "notes",
      path: join(stack.workspace, ".venom", "worktrees", "demo-1"),
      commits: [],
    });
    await client.request("inbox/answer", { id: question?.id as string, decision: "deny" });
    client.close();
  });
});
