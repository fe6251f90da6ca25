import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type ToolDescriptor, type ToolResult, ToolResultSchema } from "@venom/proto";
import { type Check, design, securityModel } from "../check.js";
import type { CheckContext } from "../context.js";
import { accepts, nonce, runArguments } from "../probes.js";
import { expect, fail } from "../verdict.js";

const CONFINED_RULE = securityModel(
  "Tool rules",
  "`read` and `write` operate through an open workspace directory capability, so path resolution, directory creation, file opening, and rename remain confined under that root even if symlinks are changed concurrently.",
);

/**
 * A workspace directory full of ways out, next to a directory outside the
 * workspace whose file no path may reach:
 *
 *   plain.txt  sub/dir/file.txt  ..foo            inside text
 *   %2e%2e/inside.txt                             literal text (an encoded name is just a name)
 *   links/inside -> ../plain.txt   links/chain-in -> inside          stay inside
 *   links/abs -> OUT/secret.txt    links/rel -> ../…/OUT/secret.txt  leave
 *   links/chain -> chain2 -> abs   links/outdir -> OUT   links/reldir -> ../…/OUT
 *   links/proc -> /proc/self/root  (a magic link)
 */
function maze(ctx: CheckContext) {
  const root = ctx.dir("containment");
  const out = mkdtempSync(join(ctx.run.outside, "maze-"));
  const secret = join(out, "secret.txt");
  const text = { inside: `inside-${nonce()}`, literal: `literal-${nonce()}`, outside: `outside-${nonce()}` };
  const links = join(root, "links");
  for (const dir of ["sub/dir", "%2e%2e", "links"]) mkdirSync(join(root, dir), { recursive: true });
  for (const file of ["plain.txt", "sub/dir/file.txt", "..foo"]) writeFileSync(join(root, file), text.inside);
  writeFileSync(join(root, "%2e%2e", "inside.txt"), text.literal);
  writeFileSync(secret, text.outside);
  const link = (name: string, target: string) => symlinkSync(target, join(links, name));
  link("inside", "../plain.txt");
  link("chain-in", "inside");
  link("abs", secret);
  link("rel", relative(links, secret));
  link("chain2", "abs");
  link("chain", "chain2");
  link("outdir", out);
  link("reldir", relative(links, out));
  link("proc", "/proc/self/root");
  const state = () => JSON.stringify([readdirSync(out).sort(), readFileSync(secret, "utf8")]);
  return { root, out, secret, text, p: ctx.rel(root), initial: state(), state };
}
type Maze = ReturnType<typeof maze>;

/** works: a positive control that must succeed; refused: must fail; contained: may succeed, but only inside. */
interface Row {
  tool: string;
  label: string;
  expect: "works" | "refused" | "contained";
  args: Record<string, unknown>;
  worked?: (result: ToolResult) => boolean;
}

function readRows(ctx: CheckContext, m: Maze): Row[] {
  const fromRoot = relative(m.root, m.secret);
  const row = (expect: Row["expect"], label: string, path: string, want?: string): Row => ({
    tool: "read",
    label,
    expect,
    args: { path },
    ...(want ? { worked: (result: ToolResult) => result.content.includes(want) } : {}),
  });
  return [
    row("works", "plain file", `${m.p}/plain.txt`, m.text.inside),
    row("works", "dot segments", `${m.p}/./sub/./dir/file.txt`, m.text.inside),
    row("works", "doubled slash", `${m.p}/sub//dir/file.txt`, m.text.inside),
    row("works", "name starting with dots", `${m.p}/..foo`, m.text.inside),
    row("works", "relative symlink inside", `${m.p}/links/inside`, m.text.inside),
    row("works", "chained symlinks inside", `${m.p}/links/chain-in`, m.text.inside),
    row("works", "%2e%2e is a literal name", `${m.p}/%2e%2e/inside.txt`, m.text.literal),
    row("refused", "absolute path", m.secret),
    row("refused", "absolute /proc/self/root path", `/proc/self/root${m.secret}`),
    row("refused", ".. chain from the workspace", ctx.rel(m.secret)),
    row("refused", ".. chain through subdirectories", `${m.p}/sub/dir/${relative(join(m.root, "sub/dir"), m.secret)}`),
    row("refused", "absolute symlink", `${m.p}/links/abs`),
    row("refused", "relative symlink", `${m.p}/links/rel`),
    row("refused", "chained symlinks", `${m.p}/links/chain`),
    row("refused", "absolute directory symlink", `${m.p}/links/outdir/secret.txt`),
    row("refused", "relative directory symlink", `${m.p}/links/reldir/secret.txt`),
    row("refused", "/proc/self/root magic link", `${m.p}/links/proc${m.secret}`),
    row("refused", "%2e%2e not decoded", `${m.p}/${fromRoot.replaceAll("..", "%2e%2e")}`),
    row("refused", "%252e%252e not decoded", `${m.p}/${fromRoot.replaceAll("..", "%252e%252e")}`),
    row("refused", "..%2f not decoded", `${m.p}/${fromRoot.replaceAll("/", "%2f")}`),
    row("refused", "backslashes are not separators", `${m.p}/${fromRoot.replaceAll("/", "\\")}`),
    row("refused", "fullwidth dots are not dots", `${m.p}/${fromRoot.replaceAll("..", "\uff0e\uff0e")}`),
  ];
}

function writeRows(ctx: CheckContext, m: Maze): Row[] {
  const written = join(m.root, "written.txt");
  const row = (expect: Row["expect"], label: string, path: string): Row => ({
    tool: "write",
    label,
    expect,
    args: { path, content: "conformance" },
  });
  return [
    {
      ...row("works", "plain file", ctx.rel(written)),
      worked: () => existsSync(written) && readFileSync(written, "utf8") === "conformance",
    },
    row("refused", "absolute path", join(m.out, "abs.txt")),
    row("refused", ".. chain from the workspace", ctx.rel(join(m.out, "dotdot.txt"))),
    row("refused", "absolute directory symlink", `${m.p}/links/outdir/link.txt`),
    row("refused", "relative directory symlink", `${m.p}/links/reldir/rel.txt`),
    row("refused", "creating directories through a directory symlink", `${m.p}/links/outdir/made/new.txt`),
    row("refused", "/proc/self/root magic link", `${m.p}/links/proc${m.out}/proc.txt`),
    // Replacing the link itself with a file inside is fine; writing through it is not.
    row("contained", "over a symlink to an outside file", `${m.p}/links/abs`),
  ];
}

function runRows(ctx: CheckContext, m: Maze, tool: ToolDescriptor): Row[] {
  if (!accepts(tool, "cwd")) return [];
  const script = "pwd -P > cwd-probe.txt";
  const row = (expect: Row["expect"], label: string, cwd: string): Row => ({
    tool: "run",
    label,
    expect,
    args: runArguments(tool, script, cwd),
  });
  return [
    { ...row("works", "cwd inside", `${m.p}/sub`), worked: () => existsSync(join(m.root, "sub", "cwd-probe.txt")) },
    row("refused", "absolute cwd elsewhere", m.out),
    row("refused", ".. chain cwd", ctx.rel(m.out)),
    row("refused", "cwd through an absolute directory symlink", `${m.p}/links/outdir`),
    row("refused", "cwd through a relative directory symlink", `${m.p}/links/reldir`),
  ];
}

/** The rows of each tool the daemon may offer. */
const ROWS: Record<string, (ctx: CheckContext, m: Maze, tool: ToolDescriptor) => Row[]> = {
  read: readRows,
  write: writeRows,
  run: runRows,
};

/**
 * The swapper: a tight loop in its own process that flips `link` between a file
 * inside and one outside, and `dir` between a directory inside and one outside,
 * each by an atomic rename, so every read races a swap.
 */
const SWAPPER = [
  `const fs = require("node:fs");`,
  `const [root, outFile, outDir, seconds] = process.argv.slice(1);`,
  `const swap = (name, target) => { fs.symlinkSync(target, root + "/." + name); fs.renameSync(root + "/." + name, root + "/" + name); };`,
  `for (let n = 0, end = Date.now() + seconds * 1000; Date.now() < end; n++) {`,
  `  swap("link", n % 2 ? outFile : "inside.txt"); swap("dir", n % 2 ? outDir : "in");`,
  `  if (n === 1) process.stdout.write("swapping\\n"); }`,
].join(" ");

/** A race's ground: `root/in`, `root/dir` → `in` inside the workspace, and an empty directory outside. */
function raceGround(ctx: CheckContext, name: string): { root: string; out: string } {
  const root = ctx.dir(name);
  mkdirSync(join(root, "in"));
  symlinkSync("in", join(root, "dir"));
  return { root, out: mkdtempSync(join(ctx.run.outside, `${name}-`)) };
}

/**
 * Start swapping `root/link` (inside.txt ↔ `outFile`) and `root/dir` (in ↔
 * `outDir`) as fast as a process can; resolves once it is swapping, so a fast
 * daemon cannot finish every call before the race begins.
 */
async function startSwapper(root: string, outFile: string, outDir: string): Promise<ChildProcess> {
  const swapper = spawn(process.execPath, ["-e", SWAPPER, root, outFile, outDir, "120"], { stdio: ["ignore", "pipe", "ignore"] });
  const swapping = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 15_000);
    swapper.stdout?.once("data", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!swapping) {
    swapper.kill("SIGKILL");
    fail("the symlink swapper did not start within 15s");
  }
  return swapper;
}

export const containmentChecks: readonly Check[] = [
  {
    id: "containment/path-escapes",
    level: "MUST",
    requirement: securityModel("Tool rules", "Both reject absolute paths and parent traversal."),
    also: [
      CONFINED_RULE,
      securityModel(
        "Tool rules",
        "A per-call `cwd` is resolved with symlinks followed at launch and must remain an existing directory under the canonical workspace; `..`, absolute paths elsewhere, and links pointing outside are refused.",
      ),
      design(
        "Containment (each app supplies its rules; the runtime supplies the mechanisms)",
        "Absolute paths and `..` are refused before that.",
      ),
    ],
    expected:
      "every way out (absolute paths, `..` chains, symlinks absolute, relative, chained and to directories, the /proc/self/root magic link, encoded traversals that are literal names) is refused by read, write and run's cwd without touching the outside; every positive control (plain paths, dot segments, symlinks that stay inside, literal %2e%2e names) still works",
    needs: ["read", "write", "run"],
    async run(ctx) {
      const m = maze(ctx);
      const { client } = await ctx.session({ label: "containment" });
      const rows = Object.entries(ROWS).flatMap(([name, rowsFor]) => {
        const tool = ctx.tool(name);
        return tool ? rowsFor(ctx, m, tool) : [];
      });
      const problems: string[] = [];
      for (const row of rows) {
        const reply = await client.request("tools/call", { name: row.tool, arguments: row.args });
        const parsed = reply.error ? undefined : ToolResultSchema.safeParse(reply.result);
        if (parsed && !parsed.success) fail(`${row.tool} ${row.label}: the result does not match the venom/1 schema`);
        const result = parsed?.data;
        const outcome = result ? `status ${result.status}` : `error ${reply.error?.code}`;
        const escaped = JSON.stringify(reply).includes(m.text.outside) || m.state() !== m.initial;
        const problem = escaped
          ? "ESCAPED the workspace"
          : row.expect === "works" && !(result?.status === "ok" && row.worked?.(result))
            ? `positive control failed (${outcome})`
            : row.expect === "refused" && result?.status === "ok"
              ? `not refused (${outcome})`
              : undefined;
        if (problem) problems.push(`${row.tool} ${row.label} ${JSON.stringify(row.args)}: ${problem}`);
        // Once the outside has changed every later row would look like an escape: the first one is the finding.
        if (escaped) break;
      }
      expect(problems.length === 0, problems.join("; "));
      const works = rows.filter((row) => row.expect === "works").length;
      return `${rows.length} paths over ${[...new Set(rows.map((row) => row.tool))].join(", ")}: ${works} positive controls worked, ${rows.length - works} ways out refused or contained`;
    },
  },
  {
    id: "containment/symlink-race",
    level: "MUST",
    requirement: CONFINED_RULE,
    also: [
      design(
        "Containment (each app supplies its rules; the runtime supplies the mechanisms)",
        "Workspace fs: an open directory fd; every open goes through openat2 with RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS (koffi), so symlinks swapped concurrently cannot escape.",
      ),
    ],
    expected:
      "while another process swaps a file symlink and a directory symlink between targets inside and outside the workspace as fast as it can, no read returns the outside file",
    needs: ["read"],
    async run(ctx) {
      const { root, out } = raceGround(ctx, "race");
      const inside = `inside-${nonce()}`;
      const outside = `outside-${nonce()}`;
      for (const file of ["inside.txt", "in/file"]) writeFileSync(join(root, file), inside);
      writeFileSync(join(out, "file"), outside);
      symlinkSync("inside.txt", join(root, "link"));
      const paths = [`${ctx.rel(root)}/link`, `${ctx.rel(root)}/dir/file`];
      const { client } = await ctx.session({ label: "race" });
      for (const path of paths) {
        const result = await ctx.callTool(client, "read", { path });
        expect(
          result.status === "ok" && result.content.includes(inside),
          `positive control: ${path} through a symlink inside did not read (status ${result.status})`,
        );
      }
      const swapper = await startSwapper(root, join(out, "file"), out);
      const counts = { inside: 0, refused: 0, escapes: 0 };
      try {
        for (let round = 0; round < ctx.run.raceRounds; round++) {
          const reply = await client.request("tools/call", { name: "read", arguments: { path: paths[round % 2] } });
          const text = JSON.stringify(reply.result ?? reply.error);
          if (text.includes(outside)) counts.escapes++;
          else if (text.includes(inside)) counts.inside++;
          else counts.refused++;
        }
      } finally {
        swapper.kill("SIGKILL");
      }
      const summary = `${ctx.run.raceRounds} reads during swaps: ${counts.inside} inside, ${counts.refused} refused, ${counts.escapes} escapes`;
      expect(counts.escapes === 0, summary);
      return summary;
    },
  },
  {
    id: "containment/symlink-race-write",
    level: "MUST",
    requirement: CONFINED_RULE,
    also: [
      securityModel(
        "Tool rules",
        "Writes use a capability-contained temporary file plus an atomic install in the destination directory and may require an expected SHA-256 when replacing a file.",
      ),
    ],
    expected:
      "while another process swaps a directory symlink between a directory inside the workspace and one outside as fast as it can, no write through it creates a file outside",
    needs: ["write"],
    async run(ctx) {
      const { root, out } = raceGround(ctx, "race-write");
      const { client } = await ctx.session({ label: "race-write" });
      const path = (round: number) => `${ctx.rel(root)}/dir/w-${round % 64}.txt`;
      const control = await ctx.callTool(client, "write", { path: path(0), content: "conformance" });
      expect(
        control.status === "ok" && existsSync(join(root, "in", "w-0.txt")),
        `positive control: a write through a symlink inside did not land (status ${control.status})`,
      );
      const swapper = await startSwapper(root, join(out, "file"), out);
      const counts = { ok: 0, refused: 0 };
      let escaped: string[] = [];
      try {
        for (let round = 0; round < ctx.run.raceRounds && escaped.length === 0; round++) {
          const reply = await client.request("tools/call", { name: "write", arguments: { path: path(round), content: "conformance" } });
          if ((reply.result as { status?: unknown } | undefined)?.status === "ok") counts.ok++;
          else counts.refused++;
          escaped = readdirSync(out);
        }
      } finally {
        swapper.kill("SIGKILL");
      }
      const summary = `${counts.ok + counts.refused} writes during swaps: ${counts.ok} written, ${counts.refused} refused`;
      ctx.see("the outside directory", escaped.length > 0 ? `holds ${escaped.join(", ")}` : "empty");
      expect(escaped.length === 0, `${summary}; a write landed outside the workspace (${escaped.join(", ")})`);
      return `${summary}, none outside`;
    },
  },
];
