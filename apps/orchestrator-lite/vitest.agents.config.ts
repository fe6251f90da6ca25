import { defineConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

// The agent lane (`pnpm test:agents`): the real agent CLIs, installed from npm, driven through venom-orch. Its own
// files and report, so the default `pnpm test` never runs it; a real agent's turn takes seconds, so more time each.
export default defineConfig({
  test: {
    ...shared.test,
    include: ["agents-test/**/*.test.ts"],
    testTimeout: 300_000,
    outputFile: { json: ".vitest-agents-results.json" },
  },
});
