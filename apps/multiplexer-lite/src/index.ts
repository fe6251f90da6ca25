export { createMuxDaemon } from "./app.js";
export type { MuxContext } from "./context.js";
