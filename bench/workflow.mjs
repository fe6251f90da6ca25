// 10. An agent's workflow in venom-mux and in tmux (docs/benchmarks.md, "An agent's workflow"): what an
// orchestrator does with an agent TUI, driven through each one's own CLI, the
// way a script or an agent would. The same fake agent (bench/fake-agent.mjs)
// in both: make a named pane of a given size in a subdirectory, wait for its
// prompt, paste a multi-line task, wait until it goes quiet, read the last
// lines, ask its state, type `/exit 3` and get the exit code, kill it.
// venom-mux has a command for each step (`wait --for/--quiet/--exit`,
// `send -p`, `ls --json`); tmux needs polling loops where it has no wait.
// Commands (processes spawned) and wall time are counted for each.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Panes } from "../packages/client/dist/index.js";
import { cleanEnv, fmt, MUX, median, pty, ROOT, sleep, spread, startMux, startTmux } from "./lib.mjs";

export const title = "An agent's workflow: venom-mux commands against tmux commands";

const AGENT = join(ROOT, "bench/fake-agent.mjs");
const TASK = ["Refactor the parser:", "- split the tokens", "- keep their positions", "then run the tests"].join("\n");
/** What the agent prints last for TASK: both workflows must read it. */
const DONE = `done: 4 lines received, last "then run the tests"`;
const COLS = 100;
const ROWS = 30;
const TAIL_LINES = 10;
const EXIT_CODE = 3;
/** Quiet means no output for this long, in both. */
const QUIET_MS = 300;
/** How often the tmux loops poll: a short interval, in tmux's favour (scripts commonly sleep 0.1–1 s). */
const POLL_MS = 50;

const STEPS = [
  "make a named 100x30 pane in a subdirectory",
  "wait until it shows its prompt",
  "paste a multi-line task",
  "wait until it goes quiet",
  `read the last ${TAIL_LINES} lines`,
  "know its state",
  "type /exit 3, get the exit code",
  "kill it",
];

/** Runs commands, counting them and timing each step; a command that exits otherwise than expected fails the run. */
function recorder(env, cwd) {
  const steps = STEPS.map(() => ({ commands: 0, ms: 0 }));
  let current = 0;
  let started = performance.now();
  return {
    steps,
    /** Run one command; its stdout. */
    run(file, args, status = 0) {
      steps[current].commands++;
      const result = spawnSync(file, args, { env, cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
      if (result.status !== status) {
        throw new Error(`${STEPS[current]}: ${args.join(" ")} exited ${result.status} (expected ${status}): ${result.stderr.trim()}`);
      }
      return result.stdout;
    },
    /** The step in progress has ended; the next begins. */
    next() {
      const now = performance.now();
      steps[current].ms = now - started;
      started = now;
      current++;
    },
  };
}

/** No loop of either workflow polls longer than this: a step that never ends fails the run instead of hanging it. */
const LOOP_LIMIT_MS = 30_000;
/** How long tmux may show a dead pane without its exit status before the round counts as one where tmux lost it. */
const STATUS_GRACE_MS = 2_000;

/** Poll `done()` every POLL_MS until it is true; throws after LOOP_LIMIT_MS naming `what`. */
async function poll(done, what) {
  const deadline = performance.now() + LOOP_LIMIT_MS;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${LOOP_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** The last `n` non-empty lines of a capture. */
const lastLines = (text, n) =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-n);

function assertDone(tail, who) {
  if (!tail.includes(DONE)) throw new Error(`${who}: the last lines do not show the agent's result: ${JSON.stringify(tail)}`);
}

async function venomWorkflow(mux) {
  const r = recorder(mux.env, mux.workspace);
  const venom = (args, status) => r.run(process.execPath, [MUX, ...args], status);
  const name = "agent";
  venom(["new", "-d", "-n", name, "-x", String(COLS), "-y", String(ROWS), "-c", "sub", "--", process.execPath, AGENT]);
  r.next();
  venom(["wait", "-t", name, "--for", "^agent>"]);
  r.next();
  venom(["send", "-p", "-t", name, TASK]);
  r.next();
  venom(["wait", "-t", name, "--quiet", String(QUIET_MS)]);
  r.next();
  const tail = lastLines(venom(["capture", "-t", name, "-S", `-${TAIL_LINES}`]), TAIL_LINES).join("\n");
  assertDone(tail, "venom-mux");
  r.next();
  const waiting = () => JSON.parse(venom(["ls", "--json"])).find((p) => p.name === name)?.waitingForInput === true;
  await poll(waiting, "venom-mux: the agent waiting for input");
  r.next();
  venom(["send", "-t", name, `/exit ${EXIT_CODE}`, "Enter"]);
  venom(["wait", "-t", name, "--exit"], EXIT_CODE);
  r.next();
  venom(["kill", "-t", name]);
  r.next();
  return { steps: r.steps, lost: false };
}

/**
 * The same workflow as a script writes it, commands chained with `\;` as in
 * tmux: one process and one connection up to the exit code, one for the kill
 * (a sequence ends at the first command that exits non-zero, here `wait
 * --exit` with the agent's 3). Timed as a whole.
 */
function venomSequenceWorkflow(mux) {
  const name = "agent";
  const args = [
    ...["new", "-d", "-n", name, "-x", String(COLS), "-y", String(ROWS), "-c", "sub", "--", process.execPath, AGENT, ";"],
    ...["wait", "-t", name, "--for", "^agent>", ";"],
    ...["send", "-p", "-t", name, TASK, ";"],
    ...["wait", "-t", name, "--quiet", String(QUIET_MS), ";"],
    ...["capture", "-t", name, "-S", `-${TAIL_LINES}`, ";"],
    ...["ls", "--json", ";"],
    ...["send", "-t", name, `/exit ${EXIT_CODE}`, "Enter", ";"],
    ...["wait", "-t", name, "--exit", ";"],
    ...["kill", "-t", name],
  ];
  const started = performance.now();
  const run = (command, status) => {
    const result = spawnSync(process.execPath, [MUX, ...command], {
      env: mux.env,
      cwd: mux.workspace,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
    if (result.status !== status)
      throw new Error(`venom-mux sequence exited ${result.status} (expected ${status}): ${result.stderr.trim()}`);
    return result.stdout;
  };
  const out = run(args, EXIT_CODE);
  const ms = performance.now() - started;
  // Its output, in order: the new pane, the capture, ls's JSON line.
  const lines = out.trimEnd().split("\n");
  assertDone(lastLines(lines.slice(1, -1).join("\n"), TAIL_LINES).join("\n"), "venom-mux sequence");
  const pane = JSON.parse(lines.at(-1)).find((p) => p.name === name);
  if (pane?.waitingForInput !== true) throw new Error(`venom-mux sequence: ls did not see the agent waiting for input: ${lines.at(-1)}`);
  return { ms, commands: args.filter((arg) => arg === ";").length + 1 };
}

/**
 * The same workflow through @venom/client, as an orchestrator written against it runs it: one connection (opened
 * inside the clock), one request per step, no process started but the agent. Timed as a whole.
 */
async function clientWorkflow(mux) {
  const name = "agent";
  const started = performance.now();
  const panes = await Panes.connect({ home: mux.home });
  try {
    await panes.newPane({ name, cols: COLS, rows: ROWS, cwd: join(mux.workspace, "sub"), argv: [process.execPath, AGENT] });
    await panes.wait(name, { for: /^agent>/ });
    await panes.paste(name, TASK);
    await panes.wait(name, { quietMs: QUIET_MS });
    assertDone((await panes.lastLines(name, TAIL_LINES)).join("\n"), "@venom/client");
    const pane = (await panes.list()).find((p) => p.name === name);
    if (pane?.waitingForInput !== true) throw new Error("@venom/client: the agent was not seen waiting for input");
    await panes.send(name, `/exit ${EXIT_CODE}`, "Enter");
    const code = await panes.exitCode(name, LOOP_LIMIT_MS / 1000);
    if (code !== EXIT_CODE) throw new Error(`@venom/client: the agent exited ${code}, not ${EXIT_CODE}`);
    await panes.kill(name);
  } finally {
    panes.close();
  }
  return performance.now() - started;
}

/**
 * What no driver can go below: the agent on a bare pty, with the workflow's own waits (its prompt, the task's
 * output, QUIET_MS of quiet, its exit) seen in-process as they happen. What a driver adds is its time less this.
 */
async function floorWorkflow(workspace) {
  const started = performance.now();
  const term = pty.spawn(process.execPath, [AGENT], { cols: COLS, rows: ROWS, cwd: join(workspace, "sub"), env: cleanEnv() });
  let screen = "";
  let lastOutput = performance.now();
  const output = new Promise((resolve) => {
    term.onData((data) => {
      screen += data;
      lastOutput = performance.now();
      resolve();
    });
  });
  const exited = new Promise((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  await output;
  while (!/agent>/.test(screen)) await sleep(1);
  term.write(`\x1b[200~${TASK}\x1b[201~`);
  while (!screen.includes(DONE) || performance.now() - lastOutput < QUIET_MS) await sleep(1);
  term.write(`/exit ${EXIT_CODE}\r`);
  const code = await exited;
  if (code !== EXIT_CODE) throw new Error(`floor: the agent exited ${code}, not ${EXIT_CODE}`);
  return performance.now() - started;
}

async function tmuxWorkflow(tmux, workspace) {
  const r = recorder(tmux.env, workspace);
  const t = (...args) => r.run("tmux", ["-S", tmux.socket, "-f", "/dev/null", ...args]);
  const name = "agent";
  const capture = (...args) => t("capture-pane", "-p", "-t", name, ...args);
  // remain-on-exit keeps the pane after its program ends, or its exit code would be lost.
  const size = ["-x", String(COLS), "-y", String(ROWS)];
  t(
    "new-session",
    "-d",
    "-s",
    name,
    ...size,
    "-c",
    join(workspace, "sub"),
    `${process.execPath} ${AGENT}`,
    ";",
    "set-option",
    "-w",
    "-t",
    name,
    "remain-on-exit",
    "on",
  );
  r.next();
  await poll(() => /^agent>/m.test(capture()), "tmux: the agent's prompt");
  r.next();
  t("set-buffer", "-b", "task", TASK, ";", "paste-buffer", "-p", "-d", "-b", "task", "-t", name);
  r.next();
  // Quiet: the screen unchanged for QUIET_MS, seen by polling.
  let screen = capture();
  let changed = performance.now();
  await poll(() => {
    const now = capture();
    if (now !== screen) changed = performance.now();
    screen = now;
    return performance.now() - changed >= QUIET_MS;
  }, "tmux: the agent going quiet");
  r.next();
  const tail = lastLines(capture("-S", `-${TAIL_LINES}`), TAIL_LINES).join("\n");
  assertDone(tail, "tmux");
  r.next();
  // The nearest tmux has: the foreground command. Whether it waits for input, tmux cannot tell.
  t("display-message", "-p", "-t", name, "#{pane_current_command}");
  r.next();
  t("send-keys", "-t", name, `/exit ${EXIT_CODE}`, "Enter");
  // tmux marks the pane dead when its pty closes and gives the status once it has reaped the program; seen here
  // (tmux 3.3a): a dead pane whose program stayed a zombie, unreaped, and no status ever came.
  let deadSince = null;
  let lost = false;
  await poll(() => {
    const [dead, status] = t("display-message", "-p", "-t", name, "#{pane_dead} #{pane_dead_status}").trim().split(" ");
    if (dead !== "1") return false;
    if (status === String(EXIT_CODE)) return true;
    if (status) throw new Error(`tmux: the agent exited ${status}, not ${EXIT_CODE}`);
    deadSince ??= performance.now();
    lost = performance.now() - deadSince > STATUS_GRACE_MS;
    return lost;
  }, "tmux: the agent's exit status");
  r.next();
  t("kill-session", "-t", name);
  r.next();
  return { steps: r.steps, lost };
}

/** How many rounds tmux may lose (and have replaced) before the step gives up on it. */
const MAX_LOST = 3;

const total = (steps, key) => steps.reduce((sum, step) => sum + step[key], 0);

const FEWER_COMMANDS = "agent workflow: fewer commands than tmux";
const LESS_WALL_TIME = "agent workflow: less wall time than tmux (as a script, chained with \\;)";
const CLIENT_HALF = "agent workflow through @venom/client: at most 0.5x tmux's wall time";

/**
 * tmux lost the exit status in every round (MAX_LOST replacements included):
 * there is nothing to compare against, which is said, and no target is
 * judged. It is tmux's failure, seen only on a loaded machine: the step does
 * not fail the run for it.
 */
function lostEveryRound(lostRounds) {
  const why = `tmux lost the agent's exit status in all ${lostRounds} rounds (a dead pane whose program stayed an unreaped zombie for ${STATUS_GRACE_MS / 1000} s and more): nothing to compare against`;
  return {
    title,
    setup: why,
    columns: ["step"],
    rows: [],
    ratios: [],
    notes: why,
    targets: [FEWER_COMMANDS, LESS_WALL_TIME, CLIENT_HALF].map((target) => ({ target, measured: why, met: null })),
    data: { lostRounds },
  };
}

export async function run({ quick }) {
  const rounds = quick ? 1 : 10;
  const warmup = quick ? 0 : 1;
  // Both servers run before the clock starts, as for a user who works with them all day.
  const mux = await startMux("workflow");
  mkdirSync(join(mux.workspace, "sub"));
  const tmux = startTmux("workflow");
  tmux.newSession("keep", "cat");
  const venom = [];
  const sequences = [];
  const clients = [];
  const floors = [];
  const tmuxRuns = [];
  let lostRounds = 0;
  // Interleaved: noise on a shared machine hits both alike, and each round gives one ratio.
  // A round tmux lost is replaced by another, up to MAX_LOST of them (it happens now and then; in --quick it was the only round).
  for (let i = 0; i < warmup + rounds + Math.min(lostRounds, MAX_LOST); i++) {
    const v = await venomWorkflow(mux);
    const q = venomSequenceWorkflow(mux);
    const c = await clientWorkflow(mux);
    const f = await floorWorkflow(mux.workspace);
    const t = await tmuxWorkflow(tmux, mux.workspace);
    if (i < warmup) continue;
    // A round where tmux never gave the exit code has no tmux time to compare: counted, left out.
    if (t.lost) lostRounds++;
    else {
      venom.push(v.steps);
      sequences.push(q);
      clients.push(c);
      floors.push(f);
      tmuxRuns.push(t.steps);
    }
  }
  if (venom.length === 0) return lostEveryRound(lostRounds);
  const wall = (runs) => runs.map((steps) => total(steps, "ms"));
  const commands = (runs) => median(runs.map((steps) => total(steps, "commands")));
  const wallRatio = median(wall(venom)) / median(wall(tmuxRuns));
  const sequenceWall = sequences.map((q) => q.ms);
  const sequenceRatio = median(sequenceWall) / median(wall(tmuxRuns));
  const commandRatio = commands(venom) / commands(tmuxRuns);
  const clientRatio = median(clients) / median(wall(tmuxRuns));
  const floor = median(floors);
  const addedRatio = (median(clients) - floor) / (median(wall(tmuxRuns)) - floor);
  const perRound = venom.map((steps, i) => total(steps, "ms") / total(tmuxRuns[i], "ms"));
  const sequencePerRound = sequences.map((q, i) => q.ms / total(tmuxRuns[i], "ms"));
  const step = (runs, s, key) => median(runs.map((steps) => steps[s][key]));
  return {
    title,
    setup: `the fake agent TUI \`bench/fake-agent.mjs\` (raw mode, bracketed paste, a prompt; a pasted task streams 20 lines 10 ms apart; \`/exit 3\` exits 3) driven through each one's CLI, one process per command (and venom-mux's also as a script, below), ${rounds} round(s)${warmup ? ` after ${warmup} warm-up` : ""}, venom-mux and tmux interleaved, both servers already running. venom-mux: \`new -d -n -x -y -c\`, \`wait --for\`, \`send -p\`, \`wait --quiet ${QUIET_MS}\`, \`capture -S -${TAIL_LINES}\`, \`ls --json\` (waitingForInput), \`send\` + \`wait --exit\`, \`kill\`. tmux 3.3a: \`new-session -d -s -x -y -c\` + \`set-option -w remain-on-exit on\`, a \`capture-pane\` loop until the prompt shows, \`set-buffer\` + \`paste-buffer -p\` in one command, a \`capture-pane\` loop until the screen is unchanged for ${QUIET_MS} ms, \`capture-pane -S -${TAIL_LINES}\`, \`display-message '#{pane_current_command}'\`, \`send-keys\` + a \`display-message '#{pane_dead} #{pane_dead_status}'\` loop, \`kill-session\`; tmux's loops poll every ${POLL_MS} ms. As a script: the same venom-mux commands chained with \`\\;\` (tmux's command sequences) in one process, timed as a whole.`,
    columns: ["step", "venom-mux commands", "venom-mux median", "tmux commands", "tmux median"],
    rows: [
      ...STEPS.map((label, s) => [
        label,
        String(step(venom, s, "commands")),
        fmt.ms(step(venom, s, "ms")),
        String(step(tmuxRuns, s, "commands")),
        fmt.ms(step(tmuxRuns, s, "ms")),
      ]),
      [
        "whole workflow (wall min / median / max)",
        String(commands(venom)),
        spread(wall(venom), fmt.ms),
        String(commands(tmuxRuns)),
        spread(wall(tmuxRuns), fmt.ms),
      ],
      [
        "whole workflow as a script: venom-mux commands chained with `\\;` (wall min / median / max)",
        `${sequences[0].commands} in one process`,
        spread(sequenceWall, fmt.ms),
        String(commands(tmuxRuns)),
        spread(wall(tmuxRuns), fmt.ms),
      ],
      [
        "whole workflow through @venom/client: one connection, one request per step (wall min / median / max)",
        "0 (one connection)",
        spread(clients, fmt.ms),
        String(commands(tmuxRuns)),
        spread(wall(tmuxRuns), fmt.ms),
      ],
      ["the floor: the agent on a bare pty, its waits seen in-process (wall min / median / max)", "-", spread(floors, fmt.ms), "-", "-"],
    ],
    ratios: [
      ["venom-mux / tmux commands (medians)", fmt.ratio(commandRatio)],
      ["venom-mux / tmux wall time (medians)", fmt.ratio(wallRatio)],
      ["venom-mux / tmux wall time, per round (min / median / max)", spread(perRound, fmt.ratio)],
      ["venom-mux chained with `\\;` / tmux wall time (medians)", fmt.ratio(sequenceRatio)],
      ["venom-mux chained with `\\;` / tmux wall time, per round (min / median / max)", spread(sequencePerRound, fmt.ratio)],
      ["@venom/client / tmux wall time (medians)", fmt.ratio(clientRatio)],
      ["@venom/client / tmux, time above the floor (medians)", fmt.ratio(addedRatio)],
    ],
    notes: `${lostRounds > 0 ? `In ${lostRounds} of ${rounds + lostRounds} rounds tmux showed the pane dead but never gave its exit status (the program stayed an unreaped zombie for ${STATUS_GRACE_MS / 1000} s and more): those rounds are left out of both columns and replaced (up to ${MAX_LOST}). ` : ""}Each venom-mux command is a Node CLI start (see the CLI start step) where a tmux command is a small C client, so venom-mux's time is mostly its ${commands(venom)} starts; tmux's is its polling loops, which also cost it commands. Chained with \`\\;\`, venom-mux pays one start instead of ${commands(venom)}; both then share a floor of about 0.6 s (the agent's own start, its 200 ms of output and the ${QUIET_MS} ms of quiet), and what is left is venom-mux's one Node start against tmux's ${commands(tmuxRuns)} C clients and the overshoot of its polling. "Know its state": venom-mux's \`ls --json\` says whether the program waits for input (from the kernel: the pty's foreground group asleep in a terminal read, output quiet); tmux can only name the foreground command, so its row is not the same answer.`,
    targets: [
      { target: FEWER_COMMANDS, measured: `${commands(venom)} against ${commands(tmuxRuns)}`, met: commandRatio < 1 },
      {
        target: LESS_WALL_TIME,
        measured: `${fmt.ratio(sequenceRatio)} (one process per command: ${fmt.ratio(wallRatio)})`,
        met: sequenceRatio < 1,
      },
      {
        target: CLIENT_HALF,
        measured: `${fmt.ratio(clientRatio)}: ${fmt.ms(median(clients))} against ${fmt.ms(median(wall(tmuxRuns)))}; the workflow's own floor is ${fmt.ms(floor)} (${fmt.ratio(floor / median(wall(tmuxRuns)))} of tmux's time, so no driver can reach 0.5×); above the floor the client adds ${fmt.ms(median(clients) - floor)} where tmux adds ${fmt.ms(median(wall(tmuxRuns)) - floor)} (${fmt.ratio(addedRatio)})`,
        met: clientRatio <= 0.5,
      },
    ],
    data: { rounds, lostRounds, venom, sequences, clients, floors, tmux: tmuxRuns },
  };
}
