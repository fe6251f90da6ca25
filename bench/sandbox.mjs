// 5. Launch overhead of confinement (docs/benchmarks.md, "Confined launch"): a program spawned plainly
// against the same program started through the Landlock sandbox launcher
// (runtime's sandboxedCommand: the C launcher venom-sandbox when the build
// compiled it, else the Node one), as venom-echo `run` and venom-mux panes
// start it with [sandbox] mode = "landlock". Two programs: `true` (the
// shortest possible launch, where the launcher's own cost shows most) and
// `node -e 0` (an agent CLI is a Node program).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, fmt, median, percentile, ROOT, tempDir, timeSpawn } from "./lib.mjs";

export const title = "Confined launch (Landlock launcher) against a plain spawn";

const WARMUP = 3;
const TARGET = 1.2;

export async function run({ quick }) {
  const n = quick ? 5 : 30;
  const { sandboxLauncher, sandboxProfileFor, sandboxedCommand } = await import(join(ROOT, "packages/runtime/dist/index.js"));
  const launcher = sandboxLauncher();
  const launcherName =
    launcher.kind === "c"
      ? "`packages/native/dist/venom-sandbox PROGRAM` (the C launcher)"
      : "`node packages/runtime/dist/sandbox/launcher.js PROGRAM` (the Node launcher: no C compiler at build time)";
  const dir = tempDir("sandbox");
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const env = cleanEnv();
  const profile = sandboxProfileFor({
    workspace,
    cwd: workspace,
    home: join(dir, "home"),
    records: join(dir, "state", "delegations"),
    writable: [],
    network: "none",
    path: env.PATH,
  });
  const programs = { true: ["true"], node: [process.execPath, "-e", "0"] };
  const commands = {};
  for (const [name, argv] of Object.entries(programs)) {
    const confined = sandboxedCommand(profile, argv, env);
    commands[`${name} plain`] = [argv[0], argv.slice(1), { env, cwd: workspace }];
    commands[`${name} confined`] = [confined.file, confined.args, { env: confined.env, cwd: workspace }];
  }
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  // Interleaved: noise on a shared machine hits every command alike.
  for (let i = 0; i < WARMUP + n; i++) {
    for (const [name, [file, args, options]] of Object.entries(commands)) {
      const ms = timeSpawn(file, args, options);
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  const med = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
  const ratio = (name) => med[`${name} confined`] / med[`${name} plain`];
  // Each round spawned both back to back, so a round's own ratio shows the spread.
  const paired = (name) => times[`${name} confined`].map((ms, i) => ms / times[`${name} plain`][i]);
  const spread = (name) =>
    `${fmt.ratio(ratio(name))} (ratio of medians; per round min ${fmt.ratio(Math.min(...paired(name)))}, max ${fmt.ratio(Math.max(...paired(name)))})`;
  const row = (name) => [name, fmt.ms(med[name]), fmt.ms(Math.min(...times[name])), fmt.ms(percentile(times[name], 90))];
  return {
    title,
    setup: `each command spawned and waited for (spawnSync), ${n} times each after ${WARMUP} warm-up, interleaved; confined = ${launcherName} with the profile of a run (system, workspace, private home, network "none"), which restricts itself with Landlock and execs PROGRAM.`,
    columns: ["command", "median", "min", "p90"],
    rows: Object.keys(commands).map(row),
    ratios: [
      ["confined / plain, `true`", spread("true")],
      ["confined / plain, `node -e 0`", spread("node")],
    ],
    targets: [
      {
        target: `confined launch of \`node -e 0\` under ${TARGET}× a plain one`,
        measured: fmt.ratio(ratio("node")),
        met: ratio("node") < TARGET,
      },
    ],
    notes:
      launcher.kind === "c"
        ? "The C launcher creates the ruleset (about 20 path rules), restricts itself and execve's the program: about a millisecond on top of the program's own launch."
        : "The Node launcher is itself a Node process (koffi, then the ruleset, then execve): it adds about one Node start-up to every confined launch, whatever the program.",
    data: { n, times },
  };
}
