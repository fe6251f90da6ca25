#!/usr/bin/env node
// CI's proof of the README's install (`pnpm package`, then `npm install -g ./release/venom-VERSION.tgz`): the tarball
// installs into a temporary prefix, its commands run from a PATH that holds only that prefix and the system's
// directories, as a user's would (the demo, venom-mux new/ls/capture/kill, venom-echo call, venom-conformance), and
// it uninstalls. Prints one summary line; exits 1 at the first check that fails.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const release = fileURLToPath(new URL("../release/", import.meta.url));
const tarball = readdirSync(release).find((name) => /^venom-.*\.tgz$/.test(name));
if (!tarball) throw new Error("install-check: no release/venom-*.tgz: run pnpm package first");
const root = mkdtempSync(join(tmpdir(), "venom-install-"));
const prefix = join(root, "prefix");
const workspace = join(root, "work");
const nodeDir = dirname(dirname(process.execPath));
const env = {
  // Only the prefix and the system's directories: no pnpm, no workspace binaries. node is the one that installs.
  PATH: [join(prefix, "bin"), dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
  HOME: join(root, "home"),
  VENOM_HOME: join(root, "venom-home"),
  LANG: "C.UTF-8",
  // What npm needs to reach its registry from this machine (a CA bundle, a proxy, npm's own settings) passes as is.
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => /^(NODE_EXTRA_CA_CERTS|(HTTPS?|NO)_PROXY|npm_config_.*)$/i.test(name)),
  ),
  // node-pty compiles at install against the headers of the Node that runs this, as the README's setup does: node-gyp
  // would download them, and the machine reaches no network but the npm registry.
  ...(existsSync(join(nodeDir, "include", "node", "common.gypi")) ? { npm_config_nodedir: nodeDir } : {}),
};
let checks = 0;
function run(command, args, expect = {}) {
  const result = spawnSync(command, args, { env, cwd: workspace, encoding: "utf8", timeout: 600_000 });
  const said = `${command} ${args.join(" ")}: exit ${result.status}\n${result.stdout}\n${result.stderr}`;
  if (result.status !== (expect.status ?? 0)) throw new Error(`install-check: ${said}`);
  for (const text of expect.stdout ?? []) if (!result.stdout.includes(text)) throw new Error(`install-check: no "${text}" in ${said}`);
  checks++;
  return result.stdout;
}
try {
  for (const dir of [workspace, env.HOME]) mkdirSync(dir, { recursive: true });
  run("npm", ["install", "-g", "--prefix", prefix, join(release, tarball)]);
  for (const bin of ["venom-echo", "venom-mux", "venom-orch", "venom-conformance", "venom-demo"]) {
    if (!existsSync(join(prefix, "bin", bin))) throw new Error(`install-check: ${bin} is not on PATH after the install`);
  }
  run("venom-demo", [], { stdout: ["daemons stopped"] });
  run("venom-mux", ["new", "-d", "-n", "job", "--", "sh", "-c", "echo installed-and-running; sleep 60"], { stdout: ["%0 job"] });
  run("venom-mux", ["wait", "-t", "job", "--for", "installed-and-running", "--timeout", "20"]);
  run("venom-mux", ["ls"], { stdout: ["%0 job: "] });
  run("venom-mux", ["capture", "-t", "job"], { stdout: ["installed-and-running"] });
  run("venom-mux", ["kill", "-t", "job"]);
  run("venom-mux", ["kill-server"]);
  run("venom-echo", ["call", "echo", '{"text":"from PATH"}'], { stdout: ["from PATH"] });
  run("venom-echo", ["stop"]);
  run("venom-conformance", ["--target", "echo"], { stdout: [" 0 failed"] });
  run("venom-mux", ["completion", "bash"], { stdout: ["complete -o default -F _venom_mux_complete venom-mux"] });
  run("npm", ["uninstall", "-g", "--prefix", prefix, "venom"]);
  if (existsSync(join(prefix, "bin", "venom-mux"))) throw new Error("install-check: venom-mux is still on PATH after the uninstall");
  console.log(
    `install: ${checks} checks passed on Node ${process.version} (${tarball} installed from a temporary prefix, run from PATH, uninstalled)`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
