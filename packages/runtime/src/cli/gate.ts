import { isatty } from "node:tty";
import { type ApprovalRequest, cutMiddle, escapedNote, terminalLine, terminalShown } from "@venom/proto";

const MAX_SUMMARY_SHOWN = 1024;
/** Lines of a summary shown: a longer one keeps its head and its tail, so the question stays next to what it asks. */
const MAX_SUMMARY_LINES = 12;

/**
 * Ask on the terminal, y/N, with the exact tool name and the server's summary.
 * Without a terminal there is nobody to ask, so no gate is declared and the
 * server denies every approval (conformance/spec/security-model.txt, "Approval behavior").
 *
 * One question at a time: requests that arrive together (an agent's calls in
 * parallel, several jobs) wait their turn, so each answer typed answers the
 * request shown above it and no other. Read at once, one "y" answered them all.
 */
export function terminalGate(
  program: string,
): ((request: ApprovalRequest, signal: AbortSignal) => Promise<"approve" | "deny">) | undefined {
  // isatty, not process.stdin.isTTY: reading process.stdin builds a stream for it, which every command would pay for.
  if (!isatty(0) || !isatty(2)) return undefined;
  let turn: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const asked = turn.then(() => (signal.aborted ? settledElsewhere(program, request, signal) : ask(program, request, signal)));
    turn = asked.catch(() => undefined);
    return asked;
  };
}

/** The question was answered elsewhere (venom-orch's inbox) before or while it was shown: say so, and ask nothing. */
function settledElsewhere(program: string, request: ApprovalRequest, signal: AbortSignal): "deny" {
  const settled = signal.reason as { decision?: string; by?: string } | undefined;
  const how = settled?.decision === "approve" ? "approved" : settled?.decision === "deny" ? "denied" : "withdrawn";
  const where = settled?.by === "inbox" ? "in the inbox" : settled?.by === "wait-bound" ? "(nobody answered in time)" : "";
  process.stderr.write(`${program}: ${terminalLine(request.tool, 64)}: ${how} ${where}\n`.replace(/ \n$/, "\n"));
  return "deny";
}

async function ask(program: string, request: ApprovalRequest, signal: AbortSignal): Promise<"approve" | "deny"> {
  // Everything shown comes from the server and, through it, from an agent: escaped, and the summary cut in the middle.
  const head = [request.label, request.tool, `(${request.risk})`].map((part) => terminalLine(part, 128)).join(" ");
  process.stderr.write(`${program}: approval needed ${head}\n  ${shownSummary(request.summary).replace(/\n/g, "\n  ")}\n`);
  // Loaded only when a person is asked: readline is not worth the start time of every command.
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // The tool is named again beside the question: lines of a summary can imitate a header, never this line.
    let answer: string;
    try {
      answer = await rl.question(`Allow this call (${terminalLine(request.tool, 64)})? [y/N] `, { signal });
    } catch (error) {
      if (!signal.aborted) throw error;
      process.stderr.write("\n");
      return settledElsewhere(program, request, signal);
    }
    return /^y(es)?$/i.test(answer.trim()) ? "approve" : "deny";
  } finally {
    rl.close();
  }
}

/** A summary as the prompt shows it: escaped, at most MAX_SUMMARY_SHOWN characters and MAX_SUMMARY_LINES lines, cut in the middle. */
export function shownSummary(summary: string): string {
  // A server that is not Venom's may send a summary unescaped: what is escaped here is counted for the person too.
  const shown = terminalShown(summary);
  const lines = cutMiddle(shown.text, MAX_SUMMARY_SHOWN).split("\n");
  if (shown.escaped > 0) lines.push(`(${escapedNote(shown.escaped)})`);
  if (lines.length <= MAX_SUMMARY_LINES) return lines.join("\n");
  const half = MAX_SUMMARY_LINES / 2;
  return [...lines.slice(0, half), `…[${lines.length - MAX_SUMMARY_LINES} lines cut]…`, ...lines.slice(-half)].join("\n");
}
