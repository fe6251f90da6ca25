import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, tempDir } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { createWorktree, mergeWorktree, removeWorktree, worktreeChanges, worktreeDiff } from "../src/worktree.js";

afterAll(cleanupAll);

/** git as a person runs it, with the repository's configuration: the naive version each attack works on. */
const plainGit = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

/** A repository with one commit; `plant` makes it hostile; the marker file is written by whatever it makes run. */
function hostileRepo(plant: (repo: string, program: string) => void): { repo: string; workspace: string; marker: string } {
  const workspace = tempDir("git-ws");
  const repo = workspace;
  const marker = join(tempDir("git-marker"), "ran");
  const program = join(tempDir("git-bin"), "evil");
  // It leaves its mark and passes its input through, so git goes on as if it were a real filter or driver.
  writeFileSync(program, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`);
  chmodSync(program, 0o755);
  plainGit(repo, "init", "-q", "-b", "main");
  plainGit(repo, "config", "user.email", "person@example.com");
  plainGit(repo, "config", "user.name", "Person");
  writeFileSync(join(repo, "a.txt"), "one\n");
  plainGit(repo, "add", "a.txt");
  plainGit(repo, "commit", "-qm", "init");
  plant(repo, program);
  // Planting it with git may have run it already: only what runs from here on counts.
  rmSync(marker, { force: true });
  return { repo, workspace, marker };
}

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, "utf8") : "");

/**
 * What venom-orch does with a job's worktree: create it; the job commits and leaves a change (with git as the agent
 * runs it: the agent's business, so what that ran is forgotten); diff, merge, remove. Nothing may run in Venom's steps.
 */
async function everyStep(repo: string, workspace: string, marker: string): Promise<void> {
  const { worktree } = await createWorktree({ cwd: repo, workspace, label: "demo-1" });
  expect(ran(marker)).toBe("");
  appendFileSync(join(worktree.path, "a.txt"), "two\n");
  plainGit(worktree.path, "commit", "-qam", "the job's change");
  appendFileSync(join(worktree.path, "a.txt"), "uncommitted\n");
  rmSync(marker, { force: true });
  const changes = await worktreeChanges(worktree);
  expect(changes.commits).toEqual([expect.stringMatching(/^[0-9a-f]+ the job's change$/)]);
  expect(changes.stat).toMatch(/a\.txt \| 2 \+\+/);
  expect(await worktreeDiff(worktree)).toMatch(/\+two\n\+uncommitted/);
  expect(await mergeWorktree(worktree, "demo-1")).toMatch(
    /^committed demo-1's uncommitted work on venom\/demo-1; fast-forwarded venom\/demo-1 into main/,
  );
  await removeWorktree(worktree, true);
  expect(existsSync(worktree.path)).toBe(false);
}

const MECHANISMS: { name: string; plant: (repo: string, program: string) => void; naive: (repo: string) => void }[] = [
  {
    name: "a post-checkout hook (and every other hook)",
    plant: (repo, program) => {
      for (const hook of ["post-checkout", "post-merge", "pre-merge-commit", "reference-transaction", "post-index-change"]) {
        writeFileSync(join(repo, ".git", "hooks", hook), `#!/bin/sh\nexec '${program}' ${hook} < /dev/null\n`, { mode: 0o755 });
      }
    },
    naive: (repo) => plainGit(repo, "checkout", "-q", "-b", "naive"),
  },
  {
    name: "an fsmonitor command",
    plant: (repo, program) => plainGit(repo, "config", "core.fsmonitor", program),
    naive: (repo) => plainGit(repo, "status", "--porcelain"),
  },
  {
    name: "an external diff driver and a textconv",
    plant: (repo, program) => {
      writeFileSync(join(repo, ".gitattributes"), "*.txt diff=evil\n");
      plainGit(repo, "add", ".gitattributes");
      plainGit(repo, "commit", "-qm", "attributes");
      plainGit(repo, "config", "diff.evil.command", program);
      plainGit(repo, "config", "diff.evil.textconv", program);
      plainGit(repo, "config", "diff.external", program);
    },
    naive: (repo) => {
      appendFileSync(join(repo, "a.txt"), "x\n");
      plainGit(repo, "diff");
    },
  },
  {
    name: "a clean/smudge filter named by .gitattributes",
    plant: (repo, program) => {
      plainGit(repo, "config", "filter.evil.clean", program);
      plainGit(repo, "config", "filter.evil.smudge", program);
      writeFileSync(join(repo, ".gitattributes"), "* filter=evil merge=evil\n");
      plainGit(repo, "config", "merge.evil.driver", `${program} %O %A %B`);
      plainGit(repo, "-c", "filter.evil.clean=", "add", ".gitattributes");
      plainGit(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "attributes");
    },
    naive: (repo) => {
      rmSync(join(repo, "a.txt"));
      plainGit(repo, "checkout", "--", "a.txt");
    },
  },
  {
    name: "an includeIf pulling configuration from the worktree",
    plant: (repo, program) => {
      mkdirSync(join(repo, "conf"));
      writeFileSync(
        join(repo, "conf", "evil.config"),
        `[core]\n\tfsmonitor = ${program}\n\tpager = ${program}\n[filter "inc"]\n\tclean = ${program}\n\tsmudge = ${program}\n`,
      );
      writeFileSync(join(repo, ".gitattributes"), "*.txt filter=inc\n");
      appendFileSync(join(repo, ".git", "config"), `[includeIf "gitdir:${repo}/"]\n\tpath = ${join(repo, "conf", "evil.config")}\n`);
    },
    naive: (repo) => plainGit(repo, "status", "--porcelain"),
  },
];

describe("git run by venom-orch never runs the repository's code", () => {
  for (const mechanism of MECHANISMS) {
    it(`${mechanism.name}: plain git runs it; creating, diffing, merging and removing a worktree do not`, async () => {
      // The attack works on the naive version: git as a person runs it.
      const naive = hostileRepo(mechanism.plant);
      mechanism.naive(naive.repo);
      expect(ran(naive.marker)).not.toBe("");

      const { repo, workspace, marker } = hostileRepo(mechanism.plant);
      await everyStep(repo, workspace, marker);
      expect(ran(marker)).toBe("");
    });
  }

  it("keeps .venom/worktrees/ out of the repository (info/exclude, once) and names a conflict or a dirty main worktree", async () => {
    const { repo, workspace } = hostileRepo(() => undefined);
    const one = await createWorktree({ cwd: repo, workspace, label: "demo-1" });
    const two = await createWorktree({ cwd: repo, workspace, label: "demo-2" });
    expect(readFileSync(join(repo, ".git", "info", "exclude"), "utf8").match(/\/\.venom\/worktrees\//g)).toHaveLength(1);
    expect(plainGit(repo, "status", "--porcelain")).toBe("");
    for (const [{ worktree }, text] of [
      [one, "from one\n"],
      [two, "from two\n"],
    ] as const) {
      writeFileSync(join(worktree.path, "a.txt"), text);
      plainGit(worktree.path, "commit", "-qam", text.trim());
    }
    expect(await mergeWorktree(one.worktree, "demo-1")).toMatch(/^fast-forwarded venom\/demo-1 into main/);
    await expect(mergeWorktree(two.worktree, "demo-2")).rejects.toThrow(
      /venom\/demo-2 does not merge cleanly into main; everything is as it was/,
    );
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("from one\n");
    expect(plainGit(repo, "status", "--porcelain")).toBe("");
    writeFileSync(join(repo, "a.txt"), "dirty\n");
    await expect(mergeWorktree(two.worktree, "demo-2")).rejects.toThrow(
      /has uncommitted changes; commit or stash them first; nothing was merged/,
    );
    writeFileSync(join(two.worktree.path, "b.txt"), "new\n");
    await expect(removeWorktree(two.worktree, false)).rejects.toThrow(/has uncommitted changes; --force removes them too/);
    await removeWorktree(two.worktree, true);
    expect(plainGit(repo, "branch", "--list", "venom/demo-2")).toBe("");
  });
});
