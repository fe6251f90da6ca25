export { createEchoDaemon, echoApp, echoTools } from "./app.js";
export type { EchoContext } from "./context.js";
