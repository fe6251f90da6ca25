import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolResultSchema } from "@venom/proto";
import { type Check, securityModel } from "../check.js";
import { saysCut } from "../probes.js";
import { expect, expectFramed, expectResult } from "../verdict.js";

/** Text JSON must escape (control characters, quotes, backslashes) and multi-byte UTF-8: a bound on content bytes alone does not bound the line. */
const HARD_TO_FRAME = '\u0001\u001f"\\é€😀 plain text\n';

export const boundsChecks: readonly Check[] = [
  {
    id: "bounds/read-output",
    level: "MUST",
    requirement: securityModel("Tool rules", "Both tools cap output or input according to configuration."),
    also: [securityModel("Network and protocol", "Protocol lines, tool arguments, tool output, and provider responses are size bounded.")],
    expected:
      "reading an 8 MiB file of text JSON must escape gives a bounded result that says it was cut (data.truncated true, or a note in the content naming the cut): content shorter than the file, in a reply line within the 1 MiB frame limit",
    needs: ["read"],
    async run(ctx) {
      const file = join(ctx.dir("bounds"), "big.txt");
      const content = HARD_TO_FRAME.repeat(Math.ceil((8 * 1024 * 1024) / Buffer.byteLength(HARD_TO_FRAME)));
      writeFileSync(file, content);
      const { client } = await ctx.session();
      const reply = await client.request("tools/call", { name: "read", arguments: { path: ctx.rel(file) } }, 60_000);
      expectFramed(reply, "read of an 8 MiB file");
      const result = expectResult(reply, ToolResultSchema, "read of an 8 MiB file");
      const bytes = Buffer.byteLength(result.content);
      expect(bytes < Buffer.byteLength(content), `the read returned all ${bytes} bytes of the file`);
      expect(saysCut(result), `the read was cut to ${bytes} bytes without saying so (no data.truncated, no note of the cut)`);
      return `status ${result.status}, ${bytes} content bytes in a ${reply.bytes}-byte line, the cut said`;
    },
  },
];
