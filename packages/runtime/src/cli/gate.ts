import { isatty } from "node:tty";
import { type ApprovalRequest, cutMiddle, terminalLine, terminalSafe } from "@venom/proto";

const MAX_SUMMARY_SHOWN = 1024;

/**
 * Ask on the terminal, y/N, with the exact tool name and the server's summary.
 * Without a terminal there is nobody to ask, so no gate is declared and the
 * server denies every approval (spec, "Approval behavior").
 */
export function terminalGate(program: string): ((request: ApprovalRequest) => Promise<"approve" | "deny">) | undefined {
  // isatty, not process.stdin.isTTY: reading process.stdin builds a stream for it, which every command would pay for.
  if (!isatty(0) || !isatty(2)) return undefined;
  return async (request) => {
    // Everything shown comes from the server and, through it, from an agent: escaped, and the summary cut in the middle.
    const summary = cutMiddle(terminalSafe(request.summary), MAX_SUMMARY_SHOWN).replace(/\n/g, "\n  ");
    const head = [request.label, request.tool, `(${request.risk})`].map((part) => terminalLine(part, 128)).join(" ");
    process.stderr.write(`${program}: approval needed ${head}\n  ${summary}\n`);
    // Loaded only when a person is asked: readline is not worth the start time of every command.
    const { createInterface } = await import("node:readline/promises");
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question("Allow this call? [y/N] ");
      return /^y(es)?$/i.test(answer.trim()) ? "approve" : "deny";
    } finally {
      rl.close();
    }
  };
}
