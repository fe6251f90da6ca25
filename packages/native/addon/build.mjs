// `node addon/build.mjs` from packages/native (its package.json "build"):
// compiles peercred.c into dist/peercred.node, an N-API addon, against the
// headers of the Node that runs the build ($npm_config_nodedir/include/node,
// else next to this node binary; N-API's ABI is stable across Node versions).
// Without a C compiler or without those headers no addon is left in dist, and
// peerCredentials answers through koffi (src/peer.ts).
import { existsSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileC } from "../build-c.mjs";

const output = "peercred.node";
const fallback = "SO_PEERCRED is read through koffi, which adds about 20 ms to every client command's start";
const nodeDir = process.env.npm_config_nodedir || dirname(dirname(realpathSync(process.execPath)));
const headers = join(nodeDir, "include", "node");

if (existsSync(join(headers, "node_api.h"))) {
  compileC({
    source: fileURLToPath(new URL("./peercred.c", import.meta.url)),
    output,
    flags: ["-shared", "-fPIC", `-I${headers}`],
    missing: `the peer-credentials addon is not built; ${fallback}`,
  });
} else {
  rmSync(fileURLToPath(new URL(`../dist/${output}`, import.meta.url)), { force: true });
  console.warn(`@venom/native: no Node headers (${headers}/node_api.h): the peer-credentials addon is not built; ${fallback}`);
}
