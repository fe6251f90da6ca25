// `pnpm bench [--quick] [STEP…]`: Venom against raw node-pty, tmux, `node -e 0`,
// a bare NDJSON echo server and spawning an agent directly, measured in one run
// and reported as ratios.
// Full mode writes docs/benchmarks.md; --quick (CI: proves the harness works,
// tiny sizes) writes only bench-results/. A step that fails to run makes the
// exit status non-zero; a missed target is reported, not failed.
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { wrapMarkdown } from "@venom/proto";
import * as cli from "./cli.mjs";
import * as conformance from "./conformance.mjs";
import * as delegation from "./delegation.mjs";
import * as inbox from "./inbox.mjs";
import * as keystroke from "./keystroke.mjs";
import { MUX, ROOT, runCleanups, version } from "./lib.mjs";
import * as rpc from "./rpc.mjs";
import * as rss from "./rss.mjs";
import * as sandbox from "./sandbox.mjs";
import * as scale from "./scale.mjs";
import * as start from "./start.mjs";
import * as throughput from "./throughput.mjs";
import * as workflow from "./workflow.mjs";

const STEPS = { throughput, keystroke, cli, start, rpc, rss, scale, sandbox, delegation, inbox, workflow, conformance };
const args = process.argv.slice(2).filter((a) => a !== "--");
const quick = args.includes("--quick");
const chosen = args.filter((a) => !a.startsWith("--"));
for (const name of chosen) if (!(name in STEPS)) usage(`unknown step: ${name}`);
for (const flag of args.filter((a) => a.startsWith("--"))) if (flag !== "--quick") usage(`unknown option: ${flag}`);
const names = chosen.length > 0 ? chosen : Object.keys(STEPS);

function usage(message) {
  console.error(`bench: ${message}\nusage: node bench/run.mjs [--quick] [${Object.keys(STEPS).join("|")}…]`);
  process.exit(2);
}

// Whatever happens, the daemons, tmux servers, ptys and temp files of the running step go.
let stopping = false;
function stop(why, code) {
  if (stopping) return;
  stopping = true;
  console.error(`\nbench: ${why}, cleaning up`);
  runCleanups().finally(() => process.exit(code));
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal, 130));
process.on("uncaughtException", (error) => stop(error.stack ?? String(error), 1));

const machine = {
  date: new Date().toISOString(),
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
  memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
  kernel: `Linux ${release()}`,
  load: loadavg()
    .map((l) => l.toFixed(2))
    .join(" "),
  node: process.version,
  tmux: version("tmux", ["-V"]),
  build: statSync(MUX).mtime.toISOString(),
  venom:
    version("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]) +
    (version("git", ["-C", ROOT, "status", "--porcelain"]) ? " (with uncommitted changes)" : ""),
};
console.log(`Venom benchmarks (${quick ? "quick" : "full"}) — ${machine.date}`);
console.log(
  `machine: ${machine.cpus}, ${machine.memory}, ${machine.kernel}, node ${machine.node}, ${machine.tmux}, venom ${machine.venom}, dist built ${machine.build}`,
);
console.log(`load average at start: ${machine.load}`);
console.log("(a shared, noisy machine: compare the ratios of one run, not absolute numbers across runs)\n");

const results = [];
const failures = [];
for (const name of names) {
  const started = performance.now();
  console.log(`── ${STEPS[name].title}`);
  try {
    const result = await STEPS[name].run({ quick });
    results.push({ name, ...result });
    printResult(result);
  } catch (error) {
    if (stopping) await new Promise(() => {}); // stop() cleans up and exits
    failures.push({ name, error: error.message });
    console.error(`bench: ${name} failed to run: ${error.stack ?? error}`);
  } finally {
    await runCleanups();
  }
  if (stopping) await new Promise(() => {});
  console.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

console.log("── Targets");
printTable(
  ["target", "measured", "met"],
  results.flatMap((r) => r.targets.map((t) => [t.target, t.measured, verdict(t.met, "yes", "NO")])),
);
for (const { name, error } of failures) console.log(`   ${name}: FAILED TO RUN: ${error}`);

const outDir = join(ROOT, "bench-results");
mkdirSync(outDir, { recursive: true });
const mode = quick ? "quick" : "full";
writeFileSync(join(outDir, `${mode}.json`), `${JSON.stringify({ mode, machine, results, failures }, null, 2)}\n`);
writeFileSync(join(outDir, `${mode}.md`), markdown());
if (!quick && failures.length === 0 && names.length === Object.keys(STEPS).length) {
  writeFileSync(join(ROOT, "docs/benchmarks.md"), markdown());
  console.log("\nwrote docs/benchmarks.md and bench-results/full.{json,md}");
} else {
  console.log(`\nwrote bench-results/${mode}.{json,md}${quick ? "" : " (docs/benchmarks.md is only written by a complete full run)"}`);
}
process.exit(failures.length > 0 ? 1 : 0);

function verdict(met, yes, no) {
  return met === null ? "n/a" : met ? yes : no;
}

function printResult(result) {
  console.log(`   ${result.setup}`);
  printTable(result.columns, result.rows);
  for (const [label, value] of result.ratios) console.log(`   ${label}: ${value}`);
}

function printTable(columns, rows) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `   ${cells.map((c, i) => String(c).padEnd(widths[i])).join("  ")}`.trimEnd();
  console.log(line(columns));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));
}

function mdTable(columns, rows) {
  const cell = (c) => String(c).replace(/\|/g, "\\|");
  return [columns, columns.map(() => "---"), ...rows].map((r) => `| ${r.map(cell).join(" | ")} |`).join("\n");
}

function markdown() {
  return wrapMarkdown(markdownUnwrapped());
}

function markdownUnwrapped() {
  const targets = results.flatMap((r) => r.targets.map((t) => [t.target, t.measured, verdict(t.met, "**met**", "**not met**")]));
  return `# Venom benchmarks

Generated by \`pnpm bench${quick ? " --quick" : ""}\` (\`bench/run.mjs\`); do not edit by hand. Every number below comes from **one run**
on the machine described here, and each comparison is a ratio between systems measured in that same run
(interleaved where a measurement repeats). The machine is **shared and noisy**: absolute numbers move between runs,
ratios less so. No test asserts how fast anything is (a test's clock only ends a wait that hangs); speed and memory targets live here.

Run \`pnpm bench\` (full sizes, writes this file and \`bench-results/full.{json,md}\`), \`pnpm bench --quick\` (tiny sizes,
for CI: proves the harness works, writes only \`bench-results/\`), or name steps: \`pnpm bench --quick throughput cli\`.
A step that fails to run makes the exit status non-zero; a missed target is reported here, not failed.

## Machine

${mdTable(
  ["", ""],
  [
    ["date", machine.date],
    ["CPUs (nproc)", machine.cpus],
    ["memory", machine.memory],
    ["kernel", machine.kernel],
    ["load average at start (1, 5, 15 min)", machine.load],
    ["node", machine.node],
    ["tmux", machine.tmux],
    ["venom commit", machine.venom],
    ["venom-mux build measured (dist/main.js mtime)", machine.build],
  ],
)}

## Targets

${mdTable(["target", "measured", "verdict"], targets)}
${failures.map((f) => `\n**${f.name} failed to run:** ${f.error}\n`).join("")}
${results
  .map(
    (r) => `## ${r.title}

${r.setup}

${mdTable(r.columns, r.rows)}

${r.ratios.map(([label, value]) => `- ${label}: **${value}**`).join("\n")}
${r.notes ? `\n${r.notes}\n` : ""}`,
  )
  .join("\n")}`;
}
