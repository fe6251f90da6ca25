// The main job, end to end: start venom-echo in a temporary home, make calls,
// show the approval prompt a person sees on a terminal, and stop it.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../apps/venom-echo/dist/main.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "venom-demo-"));
const home = join(root, "home");
const workspace = join(root, "workspace");
mkdirSync(workspace);
writeFileSync(join(workspace, "notes.txt"), "Venom demo: this file is inside the workspace.\n");
writeFileSync(join(workspace, ".env"), "DEMO_TOKEN=not-a-real-secret\n");
const env = { ...process.env, VENOM_HOME: home };

function show(args, { input, tty } = {}) {
  const line = `venom-echo ${args.map((a) => (/[\s{}"]/.test(a) ? `'${a}'` : a)).join(" ")}`;
  console.log(`\n$ ${line}`);
  // On a terminal the CLI asks y/N; `script` gives it one, and the demo types the answer.
  const result = tty
    ? spawnSync("script", ["-qec", [process.execPath, bin, ...args].map((a) => `'${a}'`).join(" "), "/dev/null"], {
        env,
        input,
        encoding: "utf8",
      })
    : spawnSync(process.execPath, [bin, ...args], { env, input, encoding: "utf8" });
  // Strip the terminal's carriage returns and cursor moves so the transcript reads as plain text.
  const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");
  process.stdout.write(result.stdout.replace(/\r/g, "").replace(ansi, ""));
  process.stdout.write(result.stderr);
  console.log(`(exit ${result.status})`);
  return result.status;
}

try {
  if (show(["start", "--workspace", workspace]) !== 0) process.exit(1);
  show(["status"]);
  show(["call", "echo", '{"text":"hello from venom"}']);
  show(["call", "read", '{"path":"notes.txt"}']);
  show(["call", "read", '{"path":"../../etc/passwd"}']);
  console.log("\n# .env is secret-like: the server asks before reading it. Without a terminal nobody can be asked, so it is denied:");
  show(["call", "read", '{"path":".env"}']);
  const haveScript = spawnSync("script", ["--version"]).status === 0;
  if (haveScript) {
    console.log("\n# On a terminal the prompt appears; the demo answers n:");
    show(["call", "read", '{"path":".env"}'], { tty: true, input: "n\n" });
  }
  show(["stop"]);
} finally {
  // Never leave a daemon behind, even if a step above failed.
  if (existsSync(join(home, "state", "echo.sock"))) {
    try {
      execFileSync(process.execPath, [bin, "stop"], { env, stdio: "ignore" });
    } catch {}
  }
  rmSync(root, { recursive: true, force: true });
}
