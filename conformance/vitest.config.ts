import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.ts";

// The self-test runs a whole suite per fault, most of it waiting on purpose (a
// kill's grace, an idle connection's close): three at a time keep a core busy.
export default mergeConfig(shared, defineConfig({ test: { maxConcurrency: 3 } }));
