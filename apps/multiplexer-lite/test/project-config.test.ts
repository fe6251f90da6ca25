import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll, cli, startMux } from "@venom/testkit";
import { afterAll, describe, expect, it } from "vitest";

afterAll(cleanupAll);

describe("venom-mux: a bad project config refuses new panes only", () => {
  it("after a pane writes an invalid .venom/config.toml, the owner's ls, capture, kill, status and stop keep working", async () => {
    const mux = await startMux();
    expect(cli(mux, ["new", "-d", "-n", "work", "--", "bash", "--norc", "--noprofile"]).code).toBe(0);
    const file = join(mux.workspace, ".venom", "config.toml");
    mkdirSync(join(mux.workspace, ".venom"));
    writeFileSync(file, "[agents.evil]\nexecutable = '/bin/sh'\n");
    const made = cli(mux, ["new", "-d", "-n", "more"]);
    expect(made.code).toBe(1);
    expect(made.stderr).toContain(`${file}: [agents] is user configuration only`);
    expect(cli(mux, ["ls"]).stdout).toMatch(/%0 work/);
    expect(cli(mux, ["capture", "-t", "work"]).code).toBe(0);
    expect(cli(mux, ["status"]).code).toBe(0);
    expect(cli(mux, ["kill", "-t", "work"]).code).toBe(0);
    expect(cli(mux, ["stop"]).code).toBe(0);
    await new Promise((r) => mux.proc.once("exit", r));
  });
});
