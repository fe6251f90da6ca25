import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

/**
 * The honest limit of docs/security-model.md ("What Venom does not do"): Venom's
 * configuration is a file of your uid, so a process that runs as you unconfined
 * can rewrite it, while Landlock keeps a confined one out of `$VENOM_HOME`.
 */
describe("who can rewrite $VENOM_HOME/config.toml", () => {
  const rewrite = (config: string) => `echo '[tools]' >> ${config} && echo REWROTE || echo REFUSED`;

  it.each([
    ["an unconfined pane can", "", "REWROTE"],
    ["a confined pane cannot", '[sandbox]\nmode = "landlock"\n', "REFUSED"],
  ])("%s", async (_, config, outcome) => {
    const mux = await startMux({ config });
    try {
      const file = join(mux.home, "config.toml");
      expect(cli(mux, ["new", "-d", "-n", "p", "--", "bash", "--norc", "--noprofile", "-c", `${rewrite(file)}; sleep 300`]).code).toBe(0);
      await expect.poll(() => cli(mux, ["capture", "-t", "p", "-J"]).stdout, { timeout: 30_000 }).toMatch(/REWROTE|REFUSED/);
      expect(cli(mux, ["capture", "-t", "p", "-J"]).stdout).toContain(outcome);
      expect(readFileSync(file, "utf8").endsWith("[tools]\n")).toBe(outcome === "REWROTE");
    } finally {
      await mux.stop();
    }
  });
});
