import { type Check, type Quote, SOURCES } from "./check.js";
import { type Answer, LEDGER, REASONS } from "./ledger.js";
import { CHECKS } from "./registry.js";

const cite = (quote: Quote) => `${SOURCES[quote.source].title}, “${quote.section}”`;
const ids = (answer: readonly string[]) => answer.map((id) => `[\`${id}\`](#${id.replace(/[^a-z0-9-]/g, "")})`).join(", ");

function reasonOf(answer: Exclude<Answer, readonly string[]>): string {
  return typeof answer === "string" ? REASONS[answer] : answer.why;
}

function checkSection(check: Check): string[] {
  const needs =
    check.needs === undefined ? "" : ` · applies when hello offers ${check.needs === "any" ? "any tool" : check.needs.join(", ")}`;
  return [
    `### ${check.id}`,
    "",
    `**${check.level}**${needs}`,
    "",
    `> ${check.requirement.text}`,
    `> — ${cite(check.requirement)}`,
    ...(check.also ?? []).flatMap((quote) => ["", `> ${quote.text}`, `> — ${cite(quote)}`]),
    "",
    `Expected: ${check.expected}.`,
    "",
  ];
}

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
    "venom-conformance --target echo                       # start venom-echo in a temporary home, check it, stop it",
    "venom-conformance --socket PATH --workspace DIR [--home DIR] [--stdio-command CMD] [--canary VALUE]",
    "venom-conformance --list | --only PREFIX | --json FILE | --junit FILE | --strict | --known-failures FILE",
    "```",
    "",
    "Verdicts: **pass**; **fail** (a MUST not met); **warn** (a SHOULD not met, or no canary to look for; a",
    "failure under `--strict`); **not-applicable** only when the daemon's hello says the feature is absent (no",
    "such tool, or no such argument). Anything else that cannot be exercised is a fail, never a skip. The exit",
    "code is 0 only when every scored check passed.",
    "",
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
  return `${lines.join("\n").trimEnd()}\n`;
}
