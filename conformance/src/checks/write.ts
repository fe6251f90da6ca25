import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Check, securityModel } from "../check.js";
import { accepts } from "../probes.js";
import { expect, NotApplicable } from "../verdict.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export const writeChecks: readonly Check[] = [
  {
    id: "write/expected-hash",
    level: "MUST",
    requirement: securityModel(
      "Tool rules",
      "The hash detects stale content observed before the write; it does not lock out an external concurrent writer.",
    ),
    also: [
      securityModel(
        "Tool rules",
        "Writes use a capability-contained temporary file plus an atomic install in the destination directory and may require an expected SHA-256 when replacing a file.",
      ),
    ],
    expected:
      "a write whose expectedSha256 is not the hash of the file it would replace is refused, names both hashes (the one given and the file's) and leaves the file as it was; with the right hash the same write replaces it",
    needs: ["write"],
    notApplicableWhen: "the write tool's input schema has no expectedSha256",
    async run(ctx) {
      const tool = ctx.tool("write");
      if (!tool || !accepts(tool, "expectedSha256")) throw new NotApplicable("the daemon's write tool takes no expectedSha256");
      const file = join(ctx.dir("write"), "file.txt");
      writeFileSync(file, "original");
      const { client } = await ctx.session();
      const write = (expectedSha256: string) => ctx.callTool(client, "write", { path: ctx.rel(file), content: "replaced", expectedSha256 });
      const given = sha256("what the writer saw earlier");
      const stale = await write(given);
      expect(stale.status !== "ok", "a write with a stale expectedSha256 reports status ok");
      expect(readFileSync(file, "utf8") === "original", "a write with a stale expectedSha256 replaced the file");
      const said = `${stale.error?.message ?? ""} ${stale.content}`.toLowerCase();
      ctx.see("the refusal", said.trim());
      expect(
        said.includes(given) && said.includes(sha256("original")),
        `the refusal does not name both hashes (given ${given}, the file's ${sha256("original")}): ${said.trim()}`,
      );
      const fresh = await write(sha256("original"));
      expect(
        fresh.status === "ok" && readFileSync(file, "utf8") === "replaced",
        `with the right hash the write did not replace the file (status ${fresh.status})`,
      );
      return `stale hash: status ${stale.status}, file unchanged; right hash: replaced`;
    },
  },
];
