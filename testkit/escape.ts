// The confinement attack tests' tools, shared by every app's tests.

/**
 * What a confined agent runs to get work done outside its sandbox: a raw
 * venom/1 client (node builtins only: the repo is not readable in there) that
 * asks a daemon's socket for one request after hello and prints the answer.
 */
export const ASK = `
const [socket, method, params] = process.argv.slice(2);
const s = require("node:net").createConnection(socket);
const send = (id, method, params) => s.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\\n");
let buffer = "";
s.on("connect", () => send(1, "hello", { protocol: "venom/1", client: { name: "escape", version: "0" } }));
s.on("data", (d) => {
  buffer += d;
  for (let nl = buffer.indexOf("\\n"); nl !== -1; nl = buffer.indexOf("\\n")) {
    const msg = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (msg.id === 1) {
      // What hello tells this caller about its confinement (the notices name it, or say nothing will be started for it).
      for (const notice of msg.result.notices) if (/your delegation is confined|Venom does nothing for you/.test(notice)) console.log("NOTICE", notice);
      send(2, method, JSON.parse(params));
    }
    if (msg.id === 2) {
      console.log("ANSWER", JSON.stringify(msg.error ? msg.error.message : msg.result.id ?? msg.result.content));
      s.end();
    }
  }
});
`;

/** The double fork of DETACH, then `exec` with `then` before "$@". */
function detach(then: string): string {
  return `( sh -c 'while [ "$(grep ^PPid: /proc/$(grep ^PPid: /proc/$$/status | cut -f2)/status | cut -f2)" = "$0" ]; do sleep 0.1; done; exec ${then}"$@"' "$$" "$@" & )
`;
}

/**
 * Runs "$@" outside the pane's process tree and environment: a double fork
 * (the orphan is re-parented to the daemon, a child subreaper, once its parent
 * exits; it waits until its parent is no longer the subshell of this script's
 * shell, passed as $0) and env -i, so neither ancestry nor markers lead back
 * to a record.
 */
export const DETACH = detach("env -i ");

/** As DETACH, but keeping the environment: ancestry no longer leads back to a record, the markers still do. */
export const DETACH_KEEPING_ENV = detach("");
