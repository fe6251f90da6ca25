import { wrapMarkdown } from "@venom/proto";
import { type Check, type Quote, SOURCES } from "./check.js";
import { type Answer, LEDGER, REASONS } from "./ledger.js";
import { CHECKS } from "./registry.js";

const cite = (quote: Quote) => `${SOURCES[quote.source].title}, “${quote.section}”`;
const ids = (answer: readonly string[]) => answer.map((id) => `[\`${id}\`](#${id.replace(/[^a-z0-9-]/g, "")})`).join(", ");

function reasonOf(answer: Exclude<Answer, readonly string[]>): string {
  return typeof answer === "string" ? REASONS[answer] : answer.why;
}

/** When a check does not apply, in words: what the owner's hello (or a tool's descriptor) must lack. */
function notApplicableWhen(check: Check): string | undefined {
  const when = [
    check.needs === "any"
      ? "hello offers no tool"
      : check.needs
        ? `hello offers none of ${check.needs.map((n) => `\`${n}\``).join(", ")}`
        : "",
    check.needsMethods ? `hello's \`methods\` lack ${check.needsMethods.map((m) => `\`${m}\``).join(", ")}` : "",
    check.notApplicableWhen ?? "",
  ].filter(Boolean);
  return when.length > 0 ? when.join("; or ") : undefined;
}

function checkSection(check: Check): string[] {
  const when = notApplicableWhen(check);
  return [
    `### ${check.id}`,
    "",
    `**${check.level}** · not applicable when ${when ?? "never: it applies to every daemon"}`,
    "",
    `> ${check.requirement.text}`,
    `> — ${cite(check.requirement)}`,
    ...(check.also ?? []).flatMap((quote) => ["", `> ${quote.text}`, `> — ${cite(quote)}`]),
    "",
    `Expected: ${check.expected}.`,
    "",
  ];
}

const RUNNING = [
  "## Running it against your own daemon",
  "",
  "Start your daemon as you normally would, with a secret of your choosing in its environment (name it like a credential, e.g. `MY_CANARY_API_KEY`: no reply, log or process environment may ever show it), then point the suite at its socket:",
  "",
  "```",
  "venom-conformance --socket $VENOM_HOME/state/mydaemon.sock --workspace /path/to/its/workspace \\",
  "  --home $VENOM_HOME --stdio-command 'mydaemon serve --stdio --workspace /path/to/its/workspace' \\",
  '  --canary "$THE_SECRET" --json report.json --junit report.xml',
  "```",
  "",
  "- `--socket PATH` and `--workspace DIR` are required: the workspace must be the one the daemon reports in hello (its canonical real path). The suite creates a scratch directory inside it and a temporary directory outside it, and removes both.",
  "- `--home DIR` is the daemon's `VENOM_HOME` (default: the directory above the socket's `state/`): file modes, delegation records and logs are read there. Checks that need it fail without it.",
  "- `--stdio-command CMD` is run with `/bin/sh -c` for the stdio checks; it must serve one venom/1 session on stdin/stdout. Without it, the stdio checks fail.",
  "- `--canary VALUE` is the secret planted in the daemon's environment; without it `secrets/canary` warns.",
  "- `--known-failures FILE` lists check ids you know fail (one a line, `#` comments): they are reported but do not fail the run, and one that no longer fails does (the list is stale).",
  "- `--list` prints every check; with `--target NAME` or `--socket`/`--workspace` it says for each whether it runs against that daemon or why it does not apply. `--only PREFIX` runs a subset (e.g. `--only process/`).",
  "- `--strict` makes a warning fail the run; `--race-rounds N` sets how many calls each symlink race makes (default 2000).",
  "",
  "The suite needs root for `identity/foreign-uid` (it runs a client as `nobody` and briefly opens the socket's modes to everyone, restored after). [docs/protocol.md](protocol.md) is the contract it holds a daemon to: the reference tools' arguments, the fingerprint's canonical JSON, hello's fields, pipelining and cancellation, and the configuration keys the suite relies on.",
  "",
  'Not every rule shows on the wire. `stop` says stopped only once the daemon\'s process has exited: `daemon/stop` answers `{stopping: true}` before the daemon stops, and "stopped" is the CLI\'s claim, made once it has watched the process exit (a pidfd on the pid `daemon/status` reports). A client sees only its connection close, which comes before the process ends, and the suite never stops the daemon under test; so the runtime\'s tests prove it (`apps/venom-echo/test/cli.test.ts` › "stop says stopped only once the daemon\'s process has exited…", `apps/orchestrator-lite/test/cli.test.ts` › "stop with a job running says stopped only once…"; [security-model.md](security-model.md)).',
  "",
  "## Verdicts and reports",
  "",
  "- **pass**; **fail**: a MUST not met; **warn**: a SHOULD not met, or no canary to look for (a failure under `--strict`).",
  "- **not-applicable**: only when the daemon says the feature is absent: its hello offers none of the tools a check needs, or lacks the methods it needs (`pane/*` for a daemon without panes), or a tool's own descriptor lacks what the check tests (each check below says when). A daemon is never excused from a rule because it answered badly: anything else that cannot be exercised is a fail.",
  "- **error**: the suite could not judge: the check threw something other than a finding, a promise it did not await failed, or it did not finish within 120 s. Each check runs isolated; an error in one never stops the others, and the JSON and JUnit reports are written whatever happens (a daemon that cannot be started or reached is a report in which every check is an error).",
  "",
  "Exit codes: 0 every scored check passed; 1 a check failed (or a known failure passed, or a warning under `--strict`); 2 usage; 3 no check failed, but one ended in error or nothing was scored.",
  "",
  "Each result names its rule (the check id, the quoted sentence and where it is), what was expected, what was observed, and on a fail or error the evidence: the files and processes the check looked at and the last lines said on the wire (the requests and replies, redacted: secrets the suite planted and the canary never appear in a report). The console groups results by section with a summary line for each and the time each check took, and shows what the daemon under test said (its name, its answers, its wire lines) with control, bidi and invisible characters written as visible `\\uXXXX` escapes, since they reach a terminal (`conformance/test/report.test.ts`); the JSON report has `summary.sections`; the JUnit report has one test suite per section.",
  "",
];

/** docs/conformance.md: the checks, then every sentence of the source documents with what answers it. */
export function renderDocs(): string {
  const sentences = LEDGER.flatMap((section) => section.sentences);
  const checked = sentences.filter(([, answer]) => Array.isArray(answer)).length;
  const counts = new Map<string, number>();
  for (const [, answer] of sentences) if (typeof answer === "string") counts.set(answer, (counts.get(answer) ?? 0) + 1);
  const lines = [
    "# Conformance",
    "",
    "<!-- Generated from conformance/src (registry.ts, ledger.ts) by `pnpm --filter @venom/conformance gen:docs`. Do not edit by hand. -->",
    "",
    "`venom-conformance` checks a running venom/1 daemon against the rules of the source documents",
    "(the Security Model and RFC 0008, copied in `conformance/spec`, made concrete for venom/1 by the design). It speaks",
    "the raw wire protocol with its own client, so it can send what a correct client never would.",
    "",
    "```",
    "venom-conformance --target echo|mux                   # start venom-echo or venom-mux in a temporary home, check it, stop it",
    "venom-conformance --socket PATH --workspace DIR [--home DIR] [--stdio-command CMD] [--canary VALUE]",
    "venom-conformance --list [--target NAME] | --only PREFIX | --json FILE | --junit FILE | --strict | --known-failures FILE",
    "```",
    "",
    ...RUNNING,
    `## Checks (${CHECKS.length})`,
    "",
    "| id | level | requirement |",
    "| --- | --- | --- |",
    ...CHECKS.map((check) => `| ${ids([check.id])} | ${check.level} | ${cite(check.requirement)} |`),
    "",
    ...CHECKS.flatMap(checkSection),
    "## The source documents, sentence by sentence",
    "",
    `Every sentence of both documents, in order: ${sentences.length} sentences, ${checked} enforced by checks,`,
    `${sentences.length - checked} answered by a reason why no check applies.`,
    "",
    "| reason | sentences |",
    "| --- | --- |",
    ...Object.entries(REASONS).map(([key, text]) => `| ${text} | ${counts.get(key) ?? 0} |`),
    `| a reason of its own (given beside the sentence) | ${sentences.filter(([, answer]) => typeof answer === "object" && !Array.isArray(answer)).length} |`,
    "",
  ];
  let source = "";
  for (const section of LEDGER) {
    if (section.source !== source) {
      source = section.source;
      lines.push(`### ${SOURCES[section.source].title} (\`${SOURCES[section.source].file}\`)`, "");
    }
    lines.push(`#### ${section.section}`, "");
    for (const [text, answer] of section.sentences) {
      lines.push(
        Array.isArray(answer)
          ? `- “${text}” → ${ids(answer)}`
          : `- “${text}” — *${reasonOf(answer as Exclude<Answer, readonly string[]>)}*`,
      );
    }
    lines.push("");
  }
  return `${wrapMarkdown(lines.join("\n")).trimEnd()}\n`;
}
