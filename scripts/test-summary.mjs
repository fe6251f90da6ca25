// One closing line for the whole monorepo, from each package's vitest JSON report:
// "tests: N passed, N failed, N skipped". Exits non-zero when a test failed,
// when a test was skipped (a skipped test proves nothing), or when none ran.
// `--lane NAME` sums a lane's reports instead (.vitest-NAME-results.json) and
// says "NAME: …" (the agent lane, `pnpm test:agents`).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const workspace = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
const patterns = [...workspace.matchAll(/^\s+-\s+(\S+)$/gm)].map((m) => m[1]);
const dirs = patterns.flatMap((p) =>
  p.endsWith("/*") ? readdirSync(join(root, p.slice(0, -2))).map((d) => join(p.slice(0, -2), d)) : [p],
);

const lane = process.argv[2] === "--lane" ? process.argv[3] : undefined;
const reportName = lane ? `.vitest-${lane}-results.json` : ".vitest-results.json";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of dirs) {
  const report = join(root, dir, reportName);
  if (!existsSync(report)) continue;
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
}
console.log(`${lane ?? "tests"}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || skipped > 0 || passed === 0 ? 1 : 0);
