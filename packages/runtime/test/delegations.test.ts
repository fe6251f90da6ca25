import { type ChildProcess, spawn } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DelegationRecord, findAncestorRecord, listRecords, reapOrphans, removeRecord, writeRecord } from "../src/delegations.js";
import { VenomHome } from "../src/home.js";
import { groupMembers, isGone, killGroup, type ProcessRef, processStat, waitUntil } from "../src/proc.js";

let tempDir: string;
let home: VenomHome;
const children: ChildProcess[] = [];
const groups: ProcessRef[] = [];

beforeEach(() => {
  tempDir = mkdtempSync(join(tmpdir(), "venom-delegations-"));
  home = new VenomHome(join(tempDir, "home"));
});
afterEach(async () => {
  for (const leader of groups.splice(0)) await killGroup(leader.pid, leader);
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((done) => child.once("exit", done));
    }
  }
  rmSync(tempDir, { recursive: true, force: true });
});

/** A detached child (its own process group), cleaned up after the test. */
function start(args: string[], env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; ref: ProcessRef } {
  const child = spawn(args[0] as string, args.slice(1), { detached: true, env, stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  if (child.pid === undefined) throw new Error("did not start");
  // Read at once: Node has not reaped the child yet, even if it already exited.
  const ref = { pid: child.pid, startTime: processStat(child.pid)?.startTime as number };
  groups.push(ref);
  return { child, ref };
}

function lines(child: ChildProcess, count: number): Promise<string[]> {
  return new Promise((done) => {
    let text = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const all = text.split("\n");
      if (all.length > count) done(all.slice(0, count));
    });
  });
}

/** The signal that ended the child, or "timeout" if Node saw no exit within `ms`. */
function exitedWithin(child: ChildProcess, ms: number): Promise<string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((done) => {
    const timer = setTimeout(() => done("timeout"), ms);
    child.once("exit", (_code, signal) => {
      clearTimeout(timer);
      done(signal);
    });
  });
}

/** A process that existed and is gone for good: the owner of an orphaned record. */
async function deadOwner(): Promise<DelegationRecord["owner"]> {
  const { child, ref } = start(["sleep", "30"]);
  child.kill("SIGKILL");
  await new Promise((done) => child.once("exit", done));
  return { instance: "orch-dead", app: "orch", ...ref };
}

function record(id: string, ref: ProcessRef, owner: DelegationRecord["owner"], pgid = ref.pid): DelegationRecord {
  return {
    id,
    owner,
    pid: ref.pid,
    startTime: ref.startTime,
    pgid,
    parent: `${owner.instance}/${id}`,
    depth: 1,
    grant: { tools: ["read"], policy: "on-risk", autoApprove: false, manage: false },
    label: "claude-1",
    workspace: tempDir,
    sandbox: [],
    createdAt: new Date().toISOString(),
  };
}

const self = (): DelegationRecord["owner"] => ({
  instance: "orch-live",
  app: "orch",
  pid: process.pid,
  startTime: processStat(process.pid)?.startTime as number,
});

function liveMembers(pgid: number): number[] {
  return groupMembers(pgid)
    .filter((member) => !isGone(member))
    .map((member) => member.pid);
}

describe("delegation records", () => {
  it("writes a private file atomically, lists and removes it", () => {
    const first = record("d1", { pid: 4242, startTime: 1 }, self());
    writeRecord(home, first);
    const path = join(home.delegations, "d1.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(home.delegations).mode & 0o777).toBe(0o700);
    expect(statSync(home.state).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(first);

    // Atomic: the new content is a new file renamed over the old one, so a
    // hard link to the old file still holds the complete old record.
    const oldLink = join(tempDir, "old-link");
    linkSync(path, oldLink);
    const second = { ...first, label: "claude-2" };
    writeRecord(home, second);
    expect(JSON.parse(readFileSync(oldLink, "utf8"))).toEqual(first);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(second);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(home.delegations)).toEqual(["d1.json"]);

    expect(listRecords(home)).toEqual([second]);
    expect(removeRecord(home, "d1")).toBe(true);
    expect(removeRecord(home, "d1")).toBe(false);
    expect(listRecords(home)).toEqual([]);
  });

  it("refuses invalid records and ids before writing", () => {
    const valid = record("d1", { pid: 4242, startTime: 1 }, self());
    expect(() => writeRecord(home, { ...valid, id: "../escape" })).toThrow();
    expect(() => writeRecord(home, { ...valid, pid: 0 })).toThrow();
    expect(() => writeRecord(home, { ...valid, depth: 0 })).toThrow();
    // The owner's app names the socket a delegate's approvals are relayed to: any app's name, never a path.
    expect(() => writeRecord(home, { ...valid, owner: { ...valid.owner, app: "../../elsewhere" } })).toThrow();
    writeRecord(home, { ...valid, id: "d2", owner: { ...valid.owner, app: "greeter" } });
    expect(listRecords(home).map((r) => r.owner.app)).toEqual(["greeter"]);
    removeRecord(home, "d2");
    expect(() => removeRecord(home, "../../config")).toThrow(TypeError);
    expect(listRecords(home)).toEqual([]);
  });

  it("skips unreadable, malformed, misnamed, planted and empty entries when listing", () => {
    const valid = record("good", { pid: 4242, startTime: 1 }, self());
    writeRecord(home, valid);
    const dir = home.delegations;
    writeFileSync(join(dir, "broken.json"), "{not json");
    // Records are not fsynced: a power loss may leave one empty (its process is gone too).
    writeFileSync(join(dir, "empty.json"), "");
    writeFileSync(join(dir, "invalid.json"), JSON.stringify({ ...valid, id: "invalid", pid: -1 }));
    writeFileSync(join(dir, "misnamed.json"), JSON.stringify({ ...valid, id: "other" }));
    writeFileSync(join(dir, "huge.json"), JSON.stringify({ ...valid, id: "huge", label: "x".repeat(100_000) }));
    writeFileSync(join(dir, ".good.json.1234.tmp"), JSON.stringify(valid));
    writeFileSync(join(tempDir, "target.json"), JSON.stringify({ ...valid, id: "link" }));
    symlinkSync(join(tempDir, "target.json"), join(dir, "link.json"));
    mkdirSync(join(dir, "dir.json"));
    expect(listRecords(home)).toEqual([valid]);
  });

  it("sees a record rewritten, edited in place or removed at the next listing, and hands out records no caller can change", () => {
    const first = record("d1", { pid: 4242, startTime: 1 }, self());
    writeRecord(home, first);
    expect(listRecords(home)).toEqual([first]);
    // Rewritten as writeRecord does (a new file renamed over it), with the same size.
    const renamed = { ...first, label: "claude-2" };
    writeRecord(home, renamed);
    expect(listRecords(home)).toEqual([renamed]);
    // Edited in place by some other process (same inode), larger and then malformed.
    const path = join(home.delegations, "d1.json");
    const edited = { ...first, label: "claude-edited-in-place" };
    writeFileSync(path, JSON.stringify(edited));
    expect(listRecords(home)).toEqual([edited]);
    writeFileSync(path, "{not json");
    expect(listRecords(home)).toEqual([]);
    writeRecord(home, first);
    const [listed] = listRecords(home);
    expect(() => {
      (listed as DelegationRecord).grant.tools.push("write");
    }).toThrow(TypeError);
    expect(listRecords(home)).toEqual([first]);
    removeRecord(home, "d1");
    expect(listRecords(home)).toEqual([]);
  });

  it("finds the record of a recorded process's grandchild that cleared its environment, matching start times", async () => {
    // sh (recorded) -> env -i sh -> sleep: the sleep carries no markers at all.
    const { child, ref } = start(["sh", "-c", `env -i /bin/sh -c '/bin/sleep 30 & echo $!; wait'`], {
      ...process.env,
      VENOM_PARENT: "orch/x",
    });
    const [grandchildLine] = await lines(child, 1);
    const grandchild = Number(grandchildLine);
    expect(processStat(grandchild)?.ppid).not.toBe(ref.pid);
    expect(readFileSync(`/proc/${grandchild}/environ`, "utf8")).not.toContain("VENOM_PARENT");

    const owner = self();
    writeRecord(home, record("unrelated", { pid: process.pid, startTime: owner.startTime + 1 }, owner));
    expect(findAncestorRecord(home, grandchild)).toBeNull();

    const recorded = record("d1", ref, owner);
    writeRecord(home, recorded);
    expect(findAncestorRecord(home, grandchild)).toEqual(recorded);
    expect(findAncestorRecord(home, ref.pid)).toEqual(recorded);
    expect(findAncestorRecord(home, process.pid)).toBeNull();

    // The same pid with another start time (a reused pid) never counts.
    writeRecord(home, { ...recorded, startTime: ref.startTime + 1 });
    expect(findAncestorRecord(home, grandchild)).toBeNull();
  });
});

describe("reapOrphans", () => {
  it("stops the whole process group of a record whose owner died, TERM first, KILL for what ignores it", async () => {
    // One sleep takes TERM; the shell and the second sleep ignore it.
    const { child, ref } = start(["sh", "-c", "sleep 300 & trap '' TERM; sleep 300 & echo $!; wait"]);
    await lines(child, 1);
    await waitUntil(() => liveMembers(ref.pid).length === 3, Date.now() + 5_000);
    const members = liveMembers(ref.pid);
    expect(members).toHaveLength(3);

    // A record of a live owner in the same home is left alone.
    const { ref: kept } = start(["sleep", "30"]);
    writeRecord(home, record("kept", kept, self()));
    writeRecord(home, record("orphan", ref, await deadOwner()));

    const outcomes = await reapOrphans(home);

    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.id).toBe("orphan");
    expect([...(outcomes[0]?.terminated ?? [])].sort()).toEqual([...members].sort());
    expect(outcomes[0]?.killed).toHaveLength(2);
    expect(outcomes[0]?.killed).toContain(ref.pid);
    expect(liveMembers(ref.pid)).toEqual([]);
    // The recorded shell is this process's own child: Node, not the reaper, collects its exit status.
    expect(await exitedWithin(child, 5_000)).toBe("SIGKILL");
    expect(listRecords(home).map((entry) => entry.id)).toEqual(["kept"]);
    expect(processStat(kept.pid)?.startTime).toBe(kept.startTime);
    expect(isGone(processStat(kept.pid))).toBe(false);
  });

  it("stops the members of a group whose leader has already exited, when each carries the record's marker", async () => {
    const owner = await deadOwner();
    const { child, ref } = start(["sh", "-c", "sleep 300 & sleep 300 & echo started"], {
      ...process.env,
      VENOM_PARENT: `${owner.instance}/orphan`,
    });
    await new Promise((done) => child.once("exit", done));
    await waitUntil(() => liveMembers(ref.pid).length === 2, Date.now() + 5_000);
    expect(liveMembers(ref.pid)).toHaveLength(2);
    writeRecord(home, record("orphan", ref, owner));

    const [outcome] = await reapOrphans(home);

    expect(outcome?.terminated).toHaveLength(2);
    expect(liveMembers(ref.pid)).toEqual([]);
    expect(listRecords(home)).toEqual([]);
  });

  it("never signals an unrelated job whose group reuses the recorded number after its leader exited", async () => {
    // An unrelated job: its group number is the recorded pgid, its leader is gone, its members carry no marker of ours.
    const { child, ref } = start(["sh", "-c", "sleep 300 & sleep 300 & echo started"]);
    await new Promise((done) => child.once("exit", done));
    await waitUntil(() => liveMembers(ref.pid).length === 2, Date.now() + 5_000);
    const members = liveMembers(ref.pid);
    expect(members).toHaveLength(2);
    // The record names an earlier process that had the same number.
    writeRecord(home, record("stale-group", { pid: ref.pid, startTime: ref.startTime - 1 }, await deadOwner()));

    const outcomes = await reapOrphans(home);

    expect(outcomes).toEqual([{ id: "stale-group", terminated: [], killed: [] }]);
    expect(liveMembers(ref.pid)).toEqual(members);
    expect(listRecords(home)).toEqual([]);
  });

  it("never signals an unrelated process that now has the recorded pid", async () => {
    const { child, ref } = start(["sleep", "30"]);
    // Same pid, another start time: the recorded process is gone and its pid reused.
    writeRecord(home, record("stale", { pid: ref.pid, startTime: ref.startTime - 1 }, await deadOwner()));

    const outcomes = await reapOrphans(home);

    expect(outcomes).toEqual([{ id: "stale", terminated: [], killed: [] }]);
    await new Promise((done) => setTimeout(done, 200));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    expect(isGone(processStat(ref.pid))).toBe(false);
    expect(listRecords(home)).toEqual([]);
  });
});
