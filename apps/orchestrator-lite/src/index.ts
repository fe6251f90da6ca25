export { createOrchDaemon, orchTools } from "./app.js";
export type { OrchContext } from "./context.js";
