import { defineConfig } from "vitest/config";

// One test configuration for every package: real daemons and real processes are
// slow to start on a 2-core machine, so timeouts are generous, and files run one
// at a time per package to keep process-heavy tests from starving each other.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    reporters: ["default", "json"],
    outputFile: { json: ".vitest-results.json" },
  },
});
