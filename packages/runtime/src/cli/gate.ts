import { createInterface } from "node:readline/promises";
import type { ApprovalRequest } from "@venom/proto";

/**
 * Ask on the terminal, y/N, with the exact tool name and the server's summary.
 * Without a terminal there is nobody to ask, so no gate is declared and the
 * server denies every approval (spec, "Approval behavior").
 */
export function terminalGate(program: string): ((request: ApprovalRequest) => Promise<"approve" | "deny">) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (request) => {
    process.stderr.write(
      `${program}: approval needed ${request.label} ${request.tool} (${request.risk})\n  ${request.summary.replace(/\n/g, "\n  ")}\n`,
    );
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question("Allow this call? [y/N] ");
      return /^y(es)?$/i.test(answer.trim()) ? "approve" : "deny";
    } finally {
      rl.close();
    }
  };
}
