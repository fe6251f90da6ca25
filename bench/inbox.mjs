// 12. The inbox under load (docs/venom-orch.md, "The inbox"): 200 background
// jobs of the fake ACP agent, each with 16 permission requests waiting for the
// person (3,200 questions), then the person's answers through `inbox/answer`,
// one at a time as a person gives them, and the whole list through
// `inbox/list`, against `daemon/status` on the same connection (the RPC floor
// under the same load).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { VenomClient } from "@venom/runtime";
import { fmt, median, ORCH, percentile, ROOT, spread, startMux, waitFor } from "./lib.mjs";

export const title = "venom-orch's inbox: answering one question with 200 jobs × 16 questions waiting";

const ACP_AGENT = join(ROOT, "apps/orchestrator-lite/agents/acp-agent.mjs");
const PER_JOB = 16;

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run({ quick }) {
  const jobs = quick ? 4 : 200;
  const answers = quick ? 8 : 200;
  const mux = await startMux("inbox");
  writeFileSync(
    join(mux.env.VENOM_HOME, "config.toml"),
    // A pipe pane is budgeted a whole screen and scrollback (~20 MiB at 120x40): 200 of them are over the default.
    `[agents.fake]\nexecutable = "${ACP_AGENT}"\nacp = true\n[mux]\nmax_screen_memory_mb = 8192\n`,
    { mode: 0o600 },
  );
  // venom-mux read its configuration when it started.
  mux.cli("restart");
  const orch = mux.startApp(ORCH, "orch");
  const client = await VenomClient.connect(orch.socket, {
    client: { name: "venom-bench", version: "0" },
    gate: async () => "approve",
    requestTimeoutMs: 0,
  });
  try {
    const prompt = `together ${Array.from({ length: PER_JOB }, () => "execute").join(" ")}`;
    const launchStart = performance.now();
    const total = jobs * PER_JOB;
    const count = async () => (await client.request("inbox/list", {})).questions.length;
    // One job at a time, each until its questions wait: 200 Node agents starting at once on 2 cores starved the daemons.
    for (let i = 0; i < jobs; i++) {
      const launched = await client.request("tools/call", { name: "agent", arguments: { agent: "fake", prompt, background: true } });
      if (launched.status !== "ok") throw new Error(`launch ${i} failed: ${launched.error?.message ?? launched.content}`);
      await waitFor(async () => (await count()) >= (i + 1) * PER_JOB, 60_000, `job ${i + 1}'s ${PER_JOB} questions waiting`);
    }
    const filledMs = performance.now() - launchStart;
    const times = { answer: [], list: [], status: [] };
    const { questions } = await client.request("inbox/list", {});
    // Interleaved: the floor and the inbox under the same load, round by round.
    for (const question of questions.slice(0, answers)) {
      times.status.push(await timed(() => client.request("daemon/status")));
      times.answer.push(await timed(() => client.request("inbox/answer", { id: question.id, decision: "deny" })));
      times.list.push(await timed(() => client.request("inbox/list", {})));
    }
    const p99 = (name) => percentile(times[name], 99);
    const row = (label, name) => [
      label,
      spread(times[name], fmt.ms),
      fmt.ms(p99(name)),
      fmt.ratio(median(times[name]) / median(times.status)),
    ];
    return {
      title,
      setup: `${jobs} background jobs of the fake ACP agent (\`apps/orchestrator-lite/agents/acp-agent.mjs\`), each asking ${PER_JOB} permission requests at once, so ${total} questions wait in the inbox (filled in ${(filledMs / 1000).toFixed(1)} s); then ${answers} rounds on one owner connection: \`daemon/status\` (the floor), \`inbox/answer\` (deny one question) and \`inbox/list\` (every question still waiting).`,
      columns: ["request", "min / median / max", "p99", "median ÷ daemon/status"],
      rows: [
        row("`daemon/status` (floor)", "status"),
        row("`inbox/answer`, one question", "answer"),
        row(`\`inbox/list\`, ~${total} questions`, "list"),
      ],
      ratios: [["inbox/answer / daemon/status (medians)", fmt.ratio(median(times.answer) / median(times.status))]],
      notes:
        "An answer settles the question in venom-orch, appends a line to the history, sends the ACP agent its reject_once and tells every watching inbox; the list grows with the questions waiting (each up to 1 KiB of summary).",
      targets: [],
      data: { jobs, answers, filledMs, times },
    };
  } finally {
    client.close();
  }
}
