export { createMuxDaemon } from "./app.js";
export type { MuxContext } from "./daemon/context.js";
