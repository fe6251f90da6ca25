import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cleanupAll, connect, startMux } from "@venom/testkit";
import { afterAll, expect, it } from "vitest";

/**
 * The daemon runs from the bundle scripts/bundle.mjs makes, in which every
 * module keeps its own import.meta.url: what a module finds next to itself
 * unbundled (the SO_PEERCRED addon, venom-pty-exec, the sandbox launcher, the
 * screen worker), the built daemon finds too. Lost, most of these lookups
 * fall back quietly (koffi for the peer check, a shell for the pty settings,
 * the Node launcher): a slower daemon, not a broken one. One lookup of each
 * kind is checked here, through the built daemon: a package's module (the
 * addon, packages/native) and an app's own file (the screen worker's bundle,
 * dist/daemon/screen-worker.cjs, next to the screen model's module). The helpers'
 * lookups leave nothing a test could see once the program runs.
 */
const ADDON = fileURLToPath(new URL("../../../packages/native/dist/peercred.node", import.meta.url));

afterAll(cleanupAll);

it("the built daemon checks each client's peer credentials with the addon packages/native built", async () => {
  const mux = await startMux();
  const client = await connect(mux);
  // The addon is loaded at the first peer check, which this client's connection made.
  const mapped = readFileSync(`/proc/${mux.proc.pid}/maps`, "utf8")
    .split("\n")
    .filter((line) => line.endsWith(".node"))
    .map((line) => line.slice(line.indexOf("/")));
  expect(mapped).toContain(ADDON);
  // And the screen worker's bundle, found next to the screen model's module, parses output: a capture shows it.
  const pane = await client.request("pane/new", { argv: ["sh", "-c", "echo bundled-daemon-ok; exec cat"] });
  let text = "";
  for (let i = 0; i < 100 && !text.includes("bundled-daemon-ok"); i++) {
    text = (await client.request("pane/capture", { target: pane.id })).text;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(text).toContain("bundled-daemon-ok");
  client.close();
});
