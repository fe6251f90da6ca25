import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.ts";

// The self-test's suites mostly wait (test/suite-against.ts): its three faults-*.test.ts files run side by side,
// each in a process of its own, which takes the package from nine minutes to four on two cores.
export default mergeConfig(shared, defineConfig({ test: { fileParallelism: true, maxWorkers: 3 } }));
