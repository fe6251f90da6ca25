// 5. Launch overhead of confinement (issue 13): a program spawned plainly
// against the same program started through the Landlock sandbox launcher
// (runtime's sandboxedCommand), as venom-echo `run` and venom-mux panes start
// it with [sandbox] mode = "landlock". Two programs: `true` (the shortest
// possible launch, where the launcher's own Node start-up dominates) and
// `node -e 0` (an agent CLI is a Node program).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, fmt, median, percentile, ROOT, tempDir, timeSpawn } from "./lib.mjs";

export const title = "Confined launch (Landlock launcher) against a plain spawn";

const WARMUP = 3;
const TARGET = 1.2;

export async function run({ quick }) {
  const n = quick ? 5 : 30;
  const { sandboxProfileFor, sandboxedCommand } = await import(join(ROOT, "packages/runtime/dist/index.js"));
  const dir = tempDir("sandbox");
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const env = cleanEnv();
  const profile = sandboxProfileFor({ workspace, cwd: workspace, home: join(dir, "home"), writable: [], network: "none", path: env.PATH });
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
  const row = (name) => [name, fmt.ms(med[name]), fmt.ms(Math.min(...times[name])), fmt.ms(percentile(times[name], 90))];
  return {
    title,
    setup: `each command spawned and waited for (spawnSync), ${n} times each after ${WARMUP} warm-up, interleaved; confined = \`node packages/runtime/dist/sandbox/launcher.js PROGRAM\` with the profile of a run (system, workspace, private home, network "none"), which restricts itself with Landlock and execs PROGRAM.`,
    columns: ["command", "median", "min", "p90"],
    rows: Object.keys(commands).map(row),
    ratios: [
      ["confined / plain, `true`", fmt.ratio(ratio("true"))],
      ["confined / plain, `node -e 0`", fmt.ratio(ratio("node"))],
    ],
    targets: [
      {
        target: `confined launch of \`node -e 0\` under ${TARGET}× a plain one (issue 13)`,
        measured: fmt.ratio(ratio("node")),
        met: ratio("node") < TARGET,
      },
    ],
    notes:
      "The launcher is itself a Node process (koffi, then the ruleset, then execve): it adds about one Node start-up to every confined launch, whatever the program.",
    data: { n, times },
  };
}
