import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VenomHome } from "../src/home.js";

describe("an instance's files of one app", () => {
  it("are named by whatever app name is given, as data; a name that is not one safe file-name component is refused", () => {
    const home = new VenomHome("/tmp/venom-home-names");
    expect(home.socket("greeter")).toBe(join(home.state, "greeter.sock"));
    expect(home.log("greeter")).toBe(join(home.logs, "greeter.log"));
    expect(home.stderrLog("greeter")).toBe(join(home.logs, "greeter.stderr"));
    expect(home.configMemo("greeter")).toBe(join(home.state, "config-memo.greeter.json"));
    for (const bad of ["../config", "a/b", "", "Echo", ".hidden", "x".repeat(33)]) {
      expect(() => home.socket(bad)).toThrow(/app name .*: 1-32 lowercase letters, digits and -, starting with a letter/);
      expect(() => home.log(bad)).toThrow(TypeError);
    }
  });
});
