import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, tempDir } from "@venom/testkit";
import { binOf } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FINAL_STATES } from "../src/jobs.js";
import { CLAUDE, CLAUDE_ENV, CODEX, KEY, type Lane, pointCodexAt, startLane } from "./lane.js";

afterAll(cleanupAll);

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });
const LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
const text = (lines: string[]) => `${lines.join("\n")}\n`;
/** The shell command by which an agent commits what it changed, under its own name. */
const commit = (who: string) => `git -c user.name=${who} -c user.email=${who.toLowerCase()}@example.com commit -qam`;

/**
 * The workspace as a repository with a.txt of ten lines, and hostile: a post-checkout and a post-merge hook and a
 * clean/smudge filter that each append to `marks` who ran them: the agent whose process it descends from
 * (VENOM_PARENT, in every agent's environment: what the agent runs with git is its own business), or nobody's.
 */
function hostileRepository(lane: Lane, marks: string): void {
  const repo = lane.stack.workspace;
  git(repo, "init", "-q", "-b", "main");
  git(repo, "config", "user.email", "person@example.com");
  git(repo, "config", "user.name", "Person");
  writeFileSync(join(repo, "a.txt"), text(LINES));
  writeFileSync(join(repo, ".gitattributes"), "*.txt filter=mark\n");
  git(repo, "add", "a.txt", ".gitattributes");
  git(repo, "commit", "-qm", "ten lines");
  for (const hook of ["post-checkout", "post-merge"]) {
    writeFileSync(join(repo, ".git", "hooks", hook), `#!/bin/sh\necho "${hook} \${VENOM_PARENT:-not-an-agent}" >> ${marks}\n`);
    chmodSync(join(repo, ".git", "hooks", hook), 0o755);
  }
  for (const filter of ["clean", "smudge"]) {
    git(repo, "config", `filter.mark.${filter}`, `sh -c 'echo "${filter} \${VENOM_PARENT:-not-an-agent}" >> ${marks}; cat'`);
  }
}

describe("Claude Code and Codex in worktrees of one repository (docs/venom-orch.md, Parallel agents and worktrees)", () => {
  let lane: Lane | undefined;
  afterEach(async () => lane?.close());

  it("both run confined in the background at once, each in its own worktree, and commit; diff shows claude-1's change, merge lands it, and the repository's hooks and filters never run", async () => {
    // Confined (their own sandbox): each writes its worktree, its git entry and the objects, and commits on its
    // worktree's detached HEAD; venom-orch moves its branch there when it ends.
    const config = `[agents.claude]\ntransport = "cli"\npermissions = "full"\nsandbox = "landlock"\n[agents.claude.env]\n${CLAUDE_ENV}\n[agents.codex]\ntransport = "cli"\npermissions = "full"\nsandbox = "landlock"\n`;
    lane = await startLane({ claude: join(binOf(CLAUDE), "claude"), codex: join(binOf(CODEX), "codex") }, config, { confined: true });
    const marks = join(tempDir("marks"), "ran");
    hostileRepository(lane, marks);
    // Each agent its own scripted model: the turns name each one's tools. Claude reads a file before it overwrites it.
    const claudeFile = join(lane.stack.workspace, ".venom", "worktrees", "claude-1", "a.txt");
    const byClaude = LINES.map((line, i) => (i === 0 ? "first, by claude" : line));
    lane.provider.script(
      { tool: "Read", input: { file_path: claudeFile } },
      { tool: "Write", input: { file_path: claudeFile, content: text(byClaude) } },
      { tool: "Bash", input: { command: `${commit("Claude")} 'first line, by claude'`, description: "commit the change" } },
      { text: "changed the first line" },
    );
    const codexModel = await lane.anotherProvider();
    codexModel.script(
      {
        tool: "exec_command",
        input: {
          cmd: `sed -i 's/^line 10$/last, by codex/' a.txt && ${commit("Codex")} 'last line, by codex'; git update-ref refs/heads/main HEAD`,
        },
      },
      { text: "changed the last line" },
    );
    expect(lane.orch(["agents", "login", "claude", "--api-key"], `${KEY}\n`).code).toBe(0);
    pointCodexAt(lane, codexModel.url);

    for (const agent of ["claude", "codex"]) {
      const started = lane.orch(["run", "--worktree", agent, `change a.txt (${agent})`, "--background", "--yes"]);
      expect(started.code, started.stderr).toBe(0);
    }
    const ended = () => ["claude-1", "codex-1"].map((job) => lane?.jobs()[job]).filter((j) => j && FINAL_STATES.includes(j.state));
    await expect.poll(() => ended().length, { timeout: 240_000, interval: 1000 }).toBe(2);
    expect(
      ended().map((j) => [j?.state, j?.note]),
      JSON.stringify(ended()),
    ).toEqual([
      ["done", null],
      ["done", null],
    ]);

    // Each worktree holds its own agent's change and nothing of the other's; the main checkout is untouched.
    // Confined, Codex could not move main to its commit (unconfined, it would have).
    expect(git(lane.stack.workspace, "log", "--format=%s", "-1", "main", "--")).toBe("ten lines\n");
    const worktree = (job: string) => join(lane?.stack.workspace as string, ".venom", "worktrees", job);
    expect(readFileSync(join(worktree("claude-1"), "a.txt"), "utf8")).toBe(text(byClaude));
    expect(readFileSync(join(worktree("codex-1"), "a.txt"), "utf8")).toBe(text(LINES.map((l, i) => (i === 9 ? "last, by codex" : l))));
    expect(readFileSync(join(lane.stack.workspace, "a.txt"), "utf8")).toBe(text(LINES));
    expect(lane.jobs()["claude-1"]?.worktree?.stat).toMatch(/a\.txt \| 2 \+-/);
    // Their commits are on their branches, and in their results.
    expect(git(lane.stack.workspace, "log", "--format=%s", "-1", "venom/claude-1", "--")).toBe("first line, by claude\n");
    expect(git(lane.stack.workspace, "log", "--format=%s", "-1", "venom/codex-1", "--")).toBe("last line, by codex\n");
    expect(lane.jobs()["codex-1"]?.worktree?.commits).toEqual([expect.stringMatching(/^[0-9a-f]+ last line, by codex$/)]);

    const diff = lane.orch(["diff", "claude-1"]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/-line 1\n\+first, by claude/);
    expect(diff.stdout).not.toContain("by codex");

    const merged = lane.orch(["merge", "claude-1", "--yes"]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/fast-forwarded venom\/claude-1 into main/);
    expect(readFileSync(join(lane.stack.workspace, "a.txt"), "utf8")).toBe(text(byClaude));
    expect(git(lane.stack.workspace, "log", "--format=%s", "-1")).toBe("first line, by claude\n");
    // codex-1's change is on its own branch, still to merge or clean.
    expect(lane.orch(["diff", "codex-1"]).stdout).toMatch(/-line 10\n\+last, by codex/);

    // Plain git runs them: the worktree add and the merge above would have left marks of nobody's.
    expect(existsSync(marks) ? readFileSync(marks, "utf8") : "").not.toContain("not-an-agent");
  });
});
