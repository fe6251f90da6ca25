export type { Check, Level, Quote, SourceId } from "./check.js";
export { SOURCES } from "./check.js";
export type { Target } from "./context.js";
export { CHECKS, selectChecks } from "./registry.js";
export { consoleReport, jsonReport, judge, junitReport } from "./report.js";
export { type CheckResult, type Report, runConformance, type Status } from "./run.js";
export { CANARY_VARIABLE, type StartedTarget, startTarget } from "./target.js";
