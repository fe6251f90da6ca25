import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const LOG_MODULE = new URL("../dist/log.js", import.meta.url).href;
const HOME_MODULE = new URL("../dist/home.js", import.meta.url).href;
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** Run `ending` in a fresh process right after it logs "last words"; what its log file then holds. */
function logAfter(ending: string): { lines: { msg: string }[]; status: number | null } {
  const home = mkdtempSync(join(tmpdir(), "venom-log-"));
  homes.push(home);
  mkdirSync(join(home, "logs"), { mode: 0o700 });
  const script = `
    import { createLogger } from ${JSON.stringify(LOG_MODULE)};
    import { VenomHome } from ${JSON.stringify(HOME_MODULE)};
    const log = createLogger(new VenomHome(${JSON.stringify(home)}), "echo");
    for (let i = 0; i < 3; i++) log.info({ i }, "earlier");
    await new Promise((resolve) => setTimeout(resolve, 10));
    log.info("last words");
    ${ending}
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const text = readFileSync(join(home, "logs", "echo.log"), "utf8");
  return {
    lines: text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line)),
    status: run.status,
  };
}

// The log is written once per turn of the event loop (src/log.ts); these are the ends where that turn never finishes.
describe("the daemon's log loses no line when the process ends", () => {
  for (const [how, ending, status] of [
    ["process.exit() in the same turn", "process.exit(3);", 3],
    ["an uncaught exception in the same turn", 'throw new Error("boom");', 1],
    [
      "a handled SIGTERM that exits",
      'process.on("SIGTERM", () => process.exit(0)); process.kill(process.pid, "SIGTERM"); await new Promise(() => setTimeout(() => {}, 10_000));',
      0,
    ],
  ] as const) {
    it(`keeps the last line after ${how}`, () => {
      const { lines, status: exit } = logAfter(ending);
      expect(exit).toBe(status);
      expect(lines.map((line) => line.msg)).toEqual(["earlier", "earlier", "earlier", "last words"]);
    });
  }
});
