import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { type Config, ConfigError, configSection, loadUserConfig } from "../src/config.js";
import { loadUserConfigMemo } from "../src/config-memo.js";
import { VenomHome } from "../src/home.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A home with config.toml holding `text` (none if undefined); `state: false` leaves it without its state directory. */
function home(text: string | undefined, { state = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "venom-memo-"));
  dirs.push(dir);
  const venom = new VenomHome(join(dir, "home"));
  mkdirSync(venom.root, { mode: 0o700 });
  if (state) venom.ensure();
  if (text !== undefined) writeFileSync(venom.configFile, text, { mode: 0o600 });
  return { venom, memo: join(venom.state, "config-memo.demo.json") };
}

/** An app's section: a table of places, each with a path. */
const PLACES = configSection("places", z.record(z.string(), z.strictObject({ path: z.string() })).default({}));
/** The app whose CLI reads config.toml through the memo. */
const APP = { app: "demo", configSections: async () => [PLACES] };
const load = (file: string) => loadUserConfig(file, { sections: [PLACES] });
const places = (config: Config) => Object.keys(PLACES.read(config));

const RICH = `
[approval]
policy = "always"
[tools]
disabled = ["fs_write"]
[places.demo]
path = "/bin/true"
[places.other]
path = "/bin/false"
[sandbox]
writable = ["/tmp"]
`;

/** What a memo made by `build` for `text` holds, with the places replaced by one named "planted": a memo used shows it. */
function planted(build: string, text: string | null) {
  const config = load(join(tmpdir(), "no-such-venom-config.toml"));
  return JSON.stringify({ build, source: text, config: { ...config, sections: { places: { planted: { path: "/bin/planted" } } } } });
}

describe("the CLI's memo of the validated configuration", () => {
  it("returns exactly what loadUserConfig returns, and keeps it, 0600, for the same build and text", async () => {
    const { venom, memo } = home(RICH);
    const fresh = load(venom.configFile);
    expect(await loadUserConfigMemo(venom, APP, "build-1")).toStrictEqual(fresh);
    expect(statSync(memo).mode & 0o777).toBe(0o600);
    // Read back from the memo, not validated again: the same configuration, through JSON.
    expect(await loadUserConfigMemo(venom, APP, "build-1")).toStrictEqual(fresh);
    // What the memo holds is what is returned while the build and the text are the same.
    writeFileSync(memo, planted("build-1", RICH));
    expect(places(await loadUserConfigMemo(venom, APP, "build-1"))).toEqual(["planted"]);
  });

  it("a changed config.toml, or another build, is validated again and the memo made anew", async () => {
    const { venom, memo } = home(RICH);
    writeFileSync(memo, planted("build-1", RICH), { mode: 0o600 });
    expect(places(await loadUserConfigMemo(venom, APP, "build-2"))).toEqual(["demo", "other"]);
    expect(JSON.parse(readFileSync(memo, "utf8")).build).toBe("build-2");
    writeFileSync(memo, planted("build-2", RICH));
    writeFileSync(venom.configFile, `${RICH}\n[places.third]\npath = "/bin/true"\n`);
    expect(places(await loadUserConfigMemo(venom, APP, "build-2"))).toEqual(["demo", "other", "third"]);
    // No file at all is a text of its own: the defaults.
    rmSync(venom.configFile);
    expect(await loadUserConfigMemo(venom, APP, "build-2")).toStrictEqual(load(venom.configFile));
    expect(JSON.parse(readFileSync(memo, "utf8")).source).toBeNull();
  });

  it("an invalid config.toml fails as loadUserConfig fails, every time, and is never kept", async () => {
    const bad = '[tools]\nmax_timeout_seconds = "soon"\n';
    const { venom, memo } = home(bad);
    const expected = (() => {
      try {
        load(venom.configFile);
      } catch (error) {
        return error as Error;
      }
    })();
    expect(expected).toBeInstanceOf(ConfigError);
    for (let i = 0; i < 2; i++) await expect(loadUserConfigMemo(venom, APP, "build-1")).rejects.toThrow(expected?.message as string);
    expect(existsSync(memo)).toBe(false);
    // A config.toml that is a symlink is refused as loadUserConfig refuses it, memo or not.
    const linked = home(undefined);
    writeFileSync(join(linked.venom.root, "elsewhere.toml"), RICH);
    symlinkSync(join(linked.venom.root, "elsewhere.toml"), linked.venom.configFile);
    await expect(loadUserConfigMemo(linked.venom, APP, "build-1")).rejects.toThrow(/not a regular file \(a symlink is not followed\)/);
  });

  // The attack: a memo planted where the user's CLI reads it, to make it list (or sign in) an agent the user never configured.
  it("ignores a memo that another user owns, that others can write, or that is a symlink", async () => {
    const owned = home(RICH);
    writeFileSync(owned.memo, planted("build-1", RICH), { mode: 0o600 });
    const nobody = Number(spawnSync("id", ["-u", "nobody"], { encoding: "utf8" }).stdout.trim());
    chownSync(owned.memo, nobody, nobody);
    expect(places(await loadUserConfigMemo(owned.venom, APP, "build-1"))).toEqual(["demo", "other"]);

    const writable = home(RICH);
    writeFileSync(writable.memo, planted("build-1", RICH));
    chmodSync(writable.memo, 0o666);
    expect(places(await loadUserConfigMemo(writable.venom, APP, "build-1"))).toEqual(["demo", "other"]);

    const linked = home(RICH);
    const target = join(linked.venom.root, "planted.json");
    writeFileSync(target, planted("build-1", RICH), { mode: 0o600 });
    symlinkSync(target, linked.memo);
    expect(places(await loadUserConfigMemo(linked.venom, APP, "build-1"))).toEqual(["demo", "other"]);
    // The new memo replaced the link; what it pointed at was not written through it.
    expect(lstatSync(linked.memo).isFile()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(planted("build-1", RICH));
  });

  it("creates nothing in a home without a state directory, and keeps no memo when it runs unbundled", async () => {
    const bare = home(RICH, { state: false });
    expect(places(await loadUserConfigMemo(bare.venom, APP, "build-1"))).toEqual(["demo", "other"]);
    expect(existsSync(bare.venom.state)).toBe(false);
    const unbundled = home(RICH);
    expect(places(await loadUserConfigMemo(unbundled.venom, APP))).toEqual(["demo", "other"]);
    expect(existsSync(unbundled.memo)).toBe(false);
  });
});
