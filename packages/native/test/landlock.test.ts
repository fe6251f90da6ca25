import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LANDLOCK_FS, landlockAbi, NativeError } from "../src/index.js";
import { builtEntryUrl, makeTempDir } from "./helpers.js";

// Restricting is irreversible for a process, so each restriction happens in a
// throwaway `node` child, never in the vitest worker.
const CHILD = `
const native = await import(process.env.NATIVE_URL);
const { appendFileSync, writeFileSync } = await import("node:fs");
const [allowed, denied] = process.argv.slice(1);
const rights = Object.values(native.LANDLOCK_FS).filter((r) => r.abi <= native.landlockAbi()).reduce((m, r) => m | r.bit, 0n);
const ruleset = native.landlockCreateRuleset({ fs: rights, net: 0n, scoped: 0n });
native.landlockAllowPath(ruleset, allowed, rights);
for (const dir of ["/usr", "/bin", "/lib", "/lib64", "/etc"]) {
  try { native.landlockAllowPath(ruleset, dir, native.LANDLOCK_FS.EXECUTE.bit | native.LANDLOCK_FS.READ_FILE.bit | native.LANDLOCK_FS.READ_DIR.bit); } catch {}
}
native.setNoNewPrivs();
native.landlockRestrictSelf(ruleset);
writeFileSync(allowed + "/by-node", "ok");
try { writeFileSync(denied + "/by-node", "no"); } catch (error) { appendFileSync(allowed + "/log", error.code + "\\n"); }
native.execve("/bin/sh", ["sh", "-c", 'echo "$0|$1|$X" > "$1/by-sh"; echo > "' + denied + '/by-sh" || echo denied >> "$1/log"; echo out', "zero", allowed], { X: "y z" });
`;

describe("landlock", () => {
  let nativeUrl: string;
  let temp: { dir: string; remove: () => void } | undefined;

  beforeAll(() => {
    nativeUrl = builtEntryUrl();
  });
  afterEach(() => temp?.remove());
  const freshDir = () => {
    temp = makeTempDir("landlock");
    return temp.dir;
  };

  it("reports the kernel's ABI", () => {
    expect(landlockAbi()).toBeGreaterThanOrEqual(1);
  });

  it("a restricted process and the program it execs write only where the ruleset allows; argv, env and stdout pass through exec", () => {
    const dir = freshDir();
    const allowed = join(dir, "allowed");
    const denied = join(dir, "denied");
    for (const dir of [allowed, denied]) spawnSync("mkdir", [dir]);
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, allowed, denied], {
      env: { ...process.env, NATIVE_URL: nativeUrl },
      encoding: "utf8",
    });
    expect(result.stderr).toMatch(/^[^\n]*denied\/by-sh: Permission denied\n$/);
    expect(result.status).toBe(0);
    // Node's stdio is close-on-exec; execve made it inheritable again.
    expect(result.stdout).toBe("out\n");
    expect(readFileSync(join(allowed, "by-node"), "utf8")).toBe("ok");
    expect(readFileSync(join(allowed, "by-sh"), "utf8")).toBe(`zero|${allowed}|y z\n`);
    expect(readFileSync(join(allowed, "log"), "utf8")).toBe("EACCES\ndenied\n");
    expect(spawnSync("ls", ["-A", denied], { encoding: "utf8" }).stdout).toBe("");
  });

  it("a right a file cannot have is refused by the kernel, as an EINVAL that names the call", () => {
    const dir = freshDir();
    const file = join(dir, "f");
    writeFileSync(file, "");
    const CHILD_RULE = `
const native = await import(process.env.NATIVE_URL);
const ruleset = native.landlockCreateRuleset({ fs: native.LANDLOCK_FS.READ_DIR.bit, net: 0n, scoped: 0n });
try { native.landlockAllowPath(ruleset, process.argv[1], native.LANDLOCK_FS.READ_DIR.bit); } catch (error) { console.log(error.message); }`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD_RULE, file], {
      env: { ...process.env, NATIVE_URL: nativeUrl },
      encoding: "utf8",
    });
    expect(result.stdout.trim()).toBe("landlock_add_rule failed: EINVAL (invalid argument)");
    expect(LANDLOCK_FS.READ_DIR.fileOnly).toBe(false);
    expect(new NativeError("landlock_restrict_self", 7).code).toBe("E2BIG");
  });
});
